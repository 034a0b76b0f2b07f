package gitinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func TestParse(t *testing.T) {
	l := parse("/src/app/.git\n/src/app/.git/worktrees/feat\nfeat\n")
	if l == nil || l.Repo != "app" || l.Branch != "feat" || !l.Worktree {
		t.Fatalf("%+v", l)
	}
	l = parse("/src/app/.git\n/src/app/.git\nHEAD\n")
	if l.Worktree || l.Branch != "HEAD" {
		t.Fatalf("%+v", l)
	}
	if parse("garbage") != nil {
		t.Fatal("garbage parsed")
	}
}

func TestResolveRealRepo(t *testing.T) {
	testkit.Need(t, "git")
	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	if l := New().Resolve(dir); l == nil || l.Repo != "proj" || l.Branch != "main" {
		t.Fatalf("unborn branch: %+v", l)
	}
	run("commit", "-q", "--allow-empty", "-m", "x")
	r := New()
	l := r.Resolve(dir)
	if l == nil || l.Repo != "proj" || l.Branch != "main" || l.Worktree {
		t.Fatalf("%+v", l)
	}
	wt := filepath.Join(filepath.Dir(dir), "proj-feat")
	run("worktree", "add", "-q", "-b", "feat", wt)
	l = r.Resolve(wt)
	if l == nil || l.Repo != "proj" || l.Branch != "feat" || !l.Worktree {
		t.Fatalf("worktree: %+v", l)
	}
	if r.Resolve(t.TempDir()) != nil {
		t.Fatal("non-repo resolved")
	}
}

// TestFilesAgreeWithGit holds the file reading to `git rev-parse` over the
// layouts a pane's directory can be in; where the reading declines, git
// answers, so only the layouts it claims are compared.
func TestFilesAgreeWithGit(t *testing.T) {
	testkit.Need(t, "git")
	root := t.TempDir()
	git := func(dir string, args ...string) string {
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	mkdir := func(p string) string {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unborn := mkdir(filepath.Join(root, "unborn"))
	git(unborn, "init", "-q", "-b", "trunk")
	app := mkdir(filepath.Join(root, "app"))
	git(app, "init", "-q", "-b", "main")
	git(app, "commit", "-q", "--allow-empty", "-m", "one")
	git(app, "commit", "-q", "--allow-empty", "-m", "two")
	sub := mkdir(filepath.Join(app, "lib", "deep"))
	wt := filepath.Join(root, "app-feat")
	git(app, "worktree", "add", "-q", "-b", "feat/x", wt)
	mkdir(filepath.Join(wt, "docs"))
	detached := filepath.Join(root, "app-detached")
	git(app, "worktree", "add", "-q", "--detach", detached, "HEAD~1")
	nested := mkdir(filepath.Join(app, "vendor", "inner"))
	git(nested, "init", "-q", "-b", "side")
	bare := filepath.Join(root, "store.git")
	git(root, "init", "-q", "--bare", "-b", "main", bare)
	plain := mkdir(filepath.Join(root, "plain"))

	claimed := 0
	for _, dir := range []string{unborn, app, sub, wt, filepath.Join(wt, "docs"), detached, nested,
		filepath.Join(app, ".git"), filepath.Join(app, ".git", "refs"), bare, plain, filepath.Join(root, "missing")} {
		got, ok := fromFiles(dir)
		if !ok {
			continue
		}
		claimed++
		want := New().fromGit(dir)
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("%s: files say %+v, git says %+v", dir, got, want)
		}
	}
	if claimed < 9 {
		t.Errorf("the files answered only %d layouts", claimed)
	}
	// Plain ones git was not asked for.
	if l, ok := fromFiles(detached); !ok || l == nil || l.Branch != "HEAD" || !l.Worktree || l.Repo != "app" {
		t.Errorf("detached worktree: %+v %v", l, ok)
	}
	if l, ok := fromFiles(filepath.Join(wt, "docs")); !ok || l == nil || l.Branch != "feat/x" || l.Repo != "app" {
		t.Errorf("worktree subdir: %+v %v", l, ok)
	}
	if _, ok := fromFiles(bare); ok {
		t.Error("a bare repository is git's to answer")
	}
}
