package gitinfo

import (
	"os"
	"os/exec"
	"path/filepath"
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
