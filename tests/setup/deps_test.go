// Package setup tests what a fresh machine runs before anything else:
// shell/deps.sh (make deps) and the demo, as a new user meets them.
package setup

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/testkit"
)

func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// pathWithout is a PATH of one directory holding links to the tools on the
// real PATH, except those named: a machine that lacks them.
func pathWithout(t *testing.T, lack ...string) string {
	t.Helper()
	// World-readable: the unprivileged run must search it.
	dir, err := os.MkdirTemp("", "tma-deps-path-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{}
	for _, l := range lack {
		skip[l] = true
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if skip[n] {
				continue
			}
			if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
				continue // the first on PATH wins, as for the shell
			}
			_ = os.Symlink(filepath.Join(d, n), filepath.Join(dir, n))
		}
	}
	return dir
}

func deps(t *testing.T, env []string, asUser bool) (string, int) {
	t.Helper()
	return depsFor(t, "", env, asUser)
}

// depsFor runs shell/deps.sh for a target ("" for none: the default).
func depsFor(t *testing.T, target string, env []string, asUser bool) (string, int) {
	t.Helper()
	script := filepath.Join(root(), "shell", "deps.sh")
	args := []string{"sh", script}
	if target != "" {
		args = append(args, target)
	}
	if asUser && os.Getuid() == 0 {
		// A real unprivileged user: nobody, with no groups.
		args = append([]string{testkit.Need(t, "setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// Not root and tools missing: one line naming them and the exact apt-get
// command, exit 2, nothing installed.
func TestDepsNamesWhatIsMissing(t *testing.T) {
	p := pathWithout(t, "shellcheck", "fzf", "dash")
	out, code := deps(t, []string{"PATH=" + p, "TMA_DEPS_BIN=" + t.TempDir()}, true)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, out)
	}
	want := "deps: missing shellcheck dash; install with: sudo apt-get install -y --no-install-recommends shellcheck dash\n"
	if out != want {
		t.Fatalf("got %q\nwant %q", out, want)
	}
}

// fzf missing: the pinned one is built from the Go module proxy into the
// bin directory (no root needed), and a second run does nothing.
func TestDepsBuildsThePinnedFzf(t *testing.T) {
	for _, tool := range []string{"tmux", "shellcheck", "dash", "git", "script", "ps", "node", "curl", "less", "zsh", "fish"} {
		testkit.Need(t, tool)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	env := []string{"PATH=" + pathWithout(t, "fzf"), "TMA_DEPS_BIN=" + bin, "GOFLAGS=-mod=mod"}
	out, code := deps(t, env, false)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "deps: building fzf (github.com/junegunn/fzf@v0.65.2) into "+bin) {
		t.Errorf("no build line:\n%s", out)
	}
	v, err := pick.Version(filepath.Join(bin, "fzf"))
	// go install builds it without fzf's release ldflags: "0.65 (devel)".
	if err != nil || !strings.HasPrefix(v, "0.65") {
		t.Fatalf("built fzf version %q, %v", v, err)
	}
	out, code = deps(t, env, false)
	if code != 0 || strings.Contains(out, "building") {
		t.Fatalf("second run: exit %d, want a no-op\n%s", code, out)
	}
	// A user's own new-enough fzf on PATH is used as it is.
	own := t.TempDir()
	if err := os.Symlink(filepath.Join(bin, "fzf"), filepath.Join(own, "fzf")); err != nil {
		t.Fatal(err)
	}
	bin2 := filepath.Join(t.TempDir(), "bin")
	out, code = deps(t, []string{"PATH=" + own + ":" + pathWithout(t, "fzf"), "TMA_DEPS_BIN=" + bin2}, false)
	if code != 0 || strings.Contains(out, "building") {
		t.Fatalf("with the user's fzf: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(bin2, "fzf")); err == nil {
		t.Errorf("built an fzf although the user's is new enough")
	}
}

// The pinned fzf is named once per place that builds it; they agree.
func TestPinnedFzfAgrees(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root(), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^FZF_VERSION := (\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no FZF_VERSION in the Makefile")
	}
	if want := "github.com/junegunn/fzf@v" + string(m[1]); pick.Pinned != want {
		t.Errorf("lib/pick.Pinned %q, Makefile %q", pick.Pinned, want)
	}
	sh, err := os.ReadFile(filepath.Join(root(), "shell", "deps.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sh), "${TMA_FZF_MODULE:-"+pick.Pinned+"}") {
		t.Errorf("shell/deps.sh does not default to %s", pick.Pinned)
	}
}

// make demo's deps (shell/deps.sh demo) need tmux and the fzf only: with
// the test toolchain missing and no root, it succeeds where the test
// target names what is missing (issue 29 item 9).
func TestDemoDepsNeedOnlyTmux(t *testing.T) {
	testkit.Need(t, "tmux")
	// World-readable: the unprivileged run must reach the fzf.
	bin, err := os.MkdirTemp("", "tma-deps-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fzf, err := pick.Find(os.Getenv("PATH"), filepath.Join(root(), "bin"))
	if err != nil {
		t.Fatalf("no fzf to lend the run (make deps builds it): %v", err)
	}
	b, err := os.ReadFile(fzf.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "fzf"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	p := pathWithout(t, "shellcheck", "node", "nodejs", "zsh", "fish", "sshd", "ssh", "dash", "curl", "less", "chromium", "fzf")
	env := []string{"PATH=" + p, "TMA_DEPS_BIN=" + bin}
	out, code := deps(t, env, true)
	if code != 2 || !strings.Contains(out, "missing shellcheck") {
		t.Fatalf("the test target with the toolchain missing: exit %d, want 2 naming it\n%s", code, out)
	}
	out, code = depsFor(t, "demo", env, true)
	if code != 0 || out != "deps: ok: every tool make demo needs is here\n" {
		t.Fatalf("the demo target: exit %d, want 0\n%s", code, out)
	}
}
