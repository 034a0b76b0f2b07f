package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/bininstall"
	"github.com/tmaproject/tma/lib/pick"
)

// installed is a make install into <home>/.local, run as a user runs it:
// the repository's Makefile, in a scratch checkout whose bin/ holds this
// test binary's fresh build (TestMain's) and an fzf 0.65 or newer, against
// the test's HOME, runtime directory and tmux server.
type installed struct {
	e        *env
	bindir   string
	checkout string
	extra    []string // more environment for the next tma runs
}

func newInstalled(t *testing.T, e *env) *installed {
	t.Helper()
	co := t.TempDir()
	mk, err := os.ReadFile(filepath.Join(root(), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(co, "Makefile"), mk, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(co, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(binDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		if err := os.Symlink(filepath.Join(binDir, d.Name()), filepath.Join(bin, d.Name())); err != nil {
			t.Fatal(err)
		}
	}
	fzf, err := pick.Find(os.Getenv("PATH"), filepath.Join(root(), "bin"))
	if err != nil {
		t.Fatalf("no fzf 0.65 or newer for make install to place (make deps builds it): %v", err)
	}
	if err := os.Symlink(fzf.Path, filepath.Join(bin, "fzf")); err != nil {
		t.Fatal(err)
	}
	return &installed{e: e, bindir: filepath.Join(e.home, ".local", "bin"), checkout: co}
}

// environ is the test's environment for a user's shell: HOME, the runtime
// directory, the test's server (never the user's default one), no config
// dir overrides, the Go caches of the real user (make
// may build the pinned fzf), PATH with bindir first when onPath.
func (in *installed) environ(onPath bool) []string {
	path := os.Getenv("PATH")
	if onPath {
		path = in.bindir + ":" + path
	}
	env := []string{"HOME=" + in.e.home, "XDG_RUNTIME_DIR=" + in.e.run, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", "TMA_CONFIG=", "TMA_CONFIG_DIR=", "TMUX=", "TMA_SOCKET_PATH=" + in.e.s.Socket, "PATH=" + path}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, _ := exec.Command("go", "env", k).Output()
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return append(os.Environ(), env...)
}

// make runs make in the scratch checkout with the install's PREFIX; build
// is taken as done (-o build): its bin/ is the build.
func (in *installed) make(target string, extra ...string) (string, error) {
	in.e.t.Helper()
	args := append([]string{"-s", "-C", in.checkout, "-o", "build", target, "PREFIX=" + filepath.Dir(in.bindir)}, extra...)
	cmd := exec.Command("make", args...)
	cmd.Env = in.environ(false)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// tma runs the installed dispatcher against the test server.
func (in *installed) tma(args ...string) (string, int) {
	in.e.t.Helper()
	cmd := exec.Command(filepath.Join(in.bindir, "tma"), append([]string{"-L", in.e.s.Name}, args...)...)
	cmd.Env = append(in.environ(true), in.extra...)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		in.e.t.Fatal(err)
	}
	return string(out), code
}

// TestInstallOverARunningDaemon: with a daemon running the installed
// tma-daemon (the file is busy: cp fails on it with "Text file busy"),
// make install succeeds, leaves no temp file, and the daemon is replaced by
// one running the file just installed; with [daemon] restart_on_upgrade off
// it is named and left (issue 29 item 1).
func TestInstallOverARunningDaemon(t *testing.T) {
	e := newEnv(t, "")
	in := newInstalled(t, e)
	out, err := in.make("install")
	if err != nil {
		t.Fatalf("first make install: %v\n%s", err, out)
	}
	if !strings.Contains(out, in.bindir+" is not on your PATH") || !strings.Contains(out, `export PATH="$HOME/.local/bin:$PATH"`) {
		t.Errorf("no PATH hint for a bin directory off PATH:\n%s", out)
	}
	if !strings.Contains(out, "tma: next: tma init") {
		t.Errorf("a first install does not say what is next:\n%s", out)
	}
	// The daemon's environment is the launcher's (the server's), not the
	// shell make install runs in: the replacement keeps it.
	in.extra = []string{"TMA_INSTALL_TEST_MARK=from-the-server"}
	if o, code := in.tma("daemon", "--ensure"); code != 0 {
		t.Fatalf("daemon --ensure: %d %s", code, o)
	}
	in.extra = nil
	t.Cleanup(e.stopDaemon)
	old := e.running()
	if old == nil {
		t.Fatal("no daemon after --ensure")
	}
	daemonFile := filepath.Join(in.bindir, "tma-daemon")
	if exe := bininstall.ExeOf(old.PID); !exe.Known || exe.Path != daemonFile || exe.Replaced {
		t.Fatalf("the daemon does not run the installed %s: %+v", daemonFile, exe)
	}
	// What the old recipe's cp met: the running file cannot be opened for
	// writing (Linux says ETXTBSY; a kernel that allows it is noted).
	if f, err := os.OpenFile(daemonFile, os.O_WRONLY, 0); err == nil {
		f.Close()
		t.Logf("this kernel lets a running binary be opened for writing; the upgrade is tested all the same")
	} else if !errors.Is(err, syscall.ETXTBSY) {
		t.Logf("opening the running binary for writing: %v", err)
	}

	out, err = in.make("install")
	if err != nil {
		t.Fatalf("make install over the running daemon: %v\n%s", err, out)
	}
	if strings.Contains(out, "tma: next:") {
		t.Errorf("an upgrade says what is next, as a first install does:\n%s", out)
	}
	if !strings.Contains(out, "tma: replaced the daemon for "+e.s.Socket) {
		t.Errorf("the install does not say it replaced the daemon:\n%s", out)
	}
	now := e.running()
	if now == nil || now.PID == old.PID {
		t.Fatalf("the daemon was not replaced: before pid %d, now %+v\n%s", old.PID, now, out)
	}
	exe := bininstall.ExeOf(now.PID)
	if exe.Path != daemonFile || exe.Replaced {
		t.Errorf("the new daemon does not run the file just installed: %+v", exe)
	}
	if !strings.Contains(strings.Join(exe.Env, "\n"), "TMA_INSTALL_TEST_MARK=from-the-server") {
		t.Errorf("the new daemon lost the old one's environment: %v", exe.Env)
	}
	if alive(old.PID) {
		t.Errorf("the old daemon (pid %d) still runs", old.PID)
	}
	ents, _ := os.ReadDir(in.bindir)
	for _, d := range ents {
		if strings.HasPrefix(d.Name(), ".") {
			t.Errorf("a temp file is left in %s: %s", in.bindir, d.Name())
		}
	}

	// Off: the daemon of the replaced build is named and left running.
	e.writeConfig("[daemon]\nrestart_on_upgrade = false\n")
	out, err = in.make("install")
	if err != nil {
		t.Fatalf("make install with restart_on_upgrade off: %v\n%s", err, out)
	}
	if !strings.Contains(out, "restart_on_upgrade is off, so it was left") {
		t.Errorf("the install does not name the daemon it left:\n%s", out)
	}
	if r := e.running(); r == nil || r.PID != now.PID {
		t.Errorf("restart_on_upgrade off, and the daemon was replaced: %d -> %+v", now.PID, r)
	}

	// make uninstall is tma uninstall: the daemon stopped, the files gone.
	out, err = in.make("uninstall", "UNINSTALL_FLAGS=--yes")
	if err != nil || !strings.Contains(out, "tma: uninstalled.") {
		t.Fatalf("make uninstall: %v\n%s", err, out)
	}
	if _, err := os.Stat(in.bindir); !os.IsNotExist(err) {
		t.Errorf("make uninstall left %s (%v)", in.bindir, err)
	}
	if r := e.running(); r != nil && alive(r.PID) {
		t.Errorf("make uninstall left the daemon running: %+v", r)
	}
}

// tree is every entry under dir: a file's mode and bytes, a directory's
// mode, a symlink's target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "symlink " + l
		case info.IsDir():
			out[rel] = "dir " + info.Mode().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = info.Mode().String() + "\n" + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUninstallLeavesTheHomeAsBefore: make install into ~/.local, hooks
// for claude and codex, the keys and a daemon; then `tma uninstall --yes`
// leaves every file and directory in HOME as it was before the install,
// byte for byte, stops the daemon and takes tma's hooks off the server
// (issue 29 item 8).
func TestUninstallLeavesTheHomeAsBefore(t *testing.T) {
	e := newEnv(t, "")
	in := newInstalled(t, e)
	seed := map[string]string{
		".tmux.conf":                "set -g prefix C-a\nbind r source-file ~/.tmux.conf\n",
		".claude/settings.json":     "{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n",
		".codex/config.toml":        "model = \"o3\"\n",
		".config/git/config":        "[user]\n\tname = someone\n",
		".local/share/keep/notes":   "mine\n",
		".config/fish/config.fish":  "set -x EDITOR vi\n",
		".gemini/settings.json":     "{}\n",
		".local/state/other/marker": "",
	}
	for rel, body := range seed {
		p := filepath.Join(e.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, e.home)

	if out, err := in.make("install"); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"install-hooks", "claude", "--yes"}, {"install-hooks", "codex", "--yes"}, {"install-keys", "--yes"}, {"daemon", "--ensure"}} {
		if out, code := in.tma(args...); code != 0 {
			t.Fatalf("tma %v: exit %d\n%s", args, code, out)
		}
	}
	t.Cleanup(e.stopDaemon)
	if e.running() == nil {
		t.Fatal("no daemon after --ensure")
	}
	if hooks := e.s.MustRun("show-hooks", "-g"); !strings.Contains(hooks, "tma") {
		t.Fatalf("install-hooks put no tmux hook on the server:\n%s", hooks)
	}
	mid := tree(t, e.home)
	for _, rel := range []string{".local/bin/tma", ".local/bin/tma-hook", ".config/tma/tmux.conf", ".config/tma/installed-files.toml"} {
		if _, ok := mid[rel]; !ok {
			t.Fatalf("the install left no %s", rel)
		}
	}
	if mid[".claude/settings.json"] == before[".claude/settings.json"] || mid[".tmux.conf"] == before[".tmux.conf"] {
		t.Fatal("install-hooks or install-keys changed nothing in the user's files: the round trip would prove nothing")
	}

	// No terminal and no --yes: every step declines, nothing is removed,
	// the files stay while the hooks call them.
	out, code := in.tma("uninstall")
	if code == 0 || !strings.Contains(out, "uninstall stopped before the files") {
		t.Errorf("uninstall with no terminal and no --yes: exit %d\n%s", code, out)
	}
	if again := tree(t, e.home); len(again) != len(mid) {
		t.Fatalf("a declined uninstall changed HOME (%d entries, was %d)\n%s", len(again), len(mid), out)
	} else {
		for p, v := range mid {
			if again[p] != v {
				t.Fatalf("a declined uninstall changed %s\n%s", p, out)
			}
		}
	}

	out, code = in.tma("uninstall", "--yes")
	if code != 0 {
		t.Fatalf("tma uninstall --yes: exit %d\n%s", code, out)
	}
	for _, want := range []string{"uninstalled hooks for claude", "uninstalled hooks for codex", "uninstalled keybindings", "stopped the daemon for " + e.s.Socket, "tma: uninstalled."} {
		if !strings.Contains(out, want) {
			t.Errorf("uninstall's output lacks %q:\n%s", want, out)
		}
	}
	after := tree(t, e.home)
	var diffs []string
	for p, v := range after {
		if w, ok := before[p]; !ok {
			diffs = append(diffs, "left behind: "+p)
		} else if w != v {
			diffs = append(diffs, "changed: "+p+"\n--- before\n"+w+"\n--- after\n"+v)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "removed: "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("after tma uninstall, HOME is not as before the install:\n%s\n\nuninstall said:\n%s", strings.Join(diffs, "\n"), out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.running() != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if r := e.running(); r != nil {
		t.Errorf("the daemon still runs after uninstall: %+v", r)
	}
	if hooks := e.s.MustRun("show-hooks", "-g"); bytes.Contains([]byte(hooks), []byte("tma")) {
		t.Errorf("tma's tmux hooks are still on the server:\n%s", hooks)
	}
}

// TestInstallDispatcher: where `go install …/cmd/...` put the tools (and
// no tma), `tma-setup install-dispatcher` writes this version's
// dispatcher beside them, executable, which then runs the tools beside it;
// a re-run changes nothing; a tma there that is not the dispatcher is
// refused without --force (issue 29 item 9).
func TestInstallDispatcher(t *testing.T) {
	e := newEnv(t, "")
	gobin := filepath.Join(t.TempDir(), "go", "bin")
	if err := os.MkdirAll(gobin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"tma-setup", "tma-view"} {
		b, err := os.ReadFile(filepath.Join(binDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gobin, n), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(gobin, "tma-setup"), args...)
		cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_CONFIG_HOME=", "TMA_CONFIG_DIR=", "PATH=/usr/bin:/bin")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	out, code := run("install-dispatcher")
	if code != 0 || !strings.Contains(out, "wrote the dispatcher "+filepath.Join(gobin, "tma")) || !strings.Contains(out, "is not on your PATH") {
		t.Fatalf("install-dispatcher: exit %d\n%s", code, out)
	}
	want, _ := os.ReadFile(filepath.Join(root(), "shell", "tma"))
	got, err := os.ReadFile(filepath.Join(gobin, "tma"))
	st, _ := os.Stat(filepath.Join(gobin, "tma"))
	if err != nil || !bytes.Equal(got, want) || st.Mode().Perm() != 0o755 {
		t.Fatalf("the dispatcher written is not shell/tma, 0755 (%v, mode %v)", err, st.Mode())
	}
	cmd := exec.Command(filepath.Join(gobin, "tma"), "--version")
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	if v, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(string(v), "tma ") {
		t.Errorf("the dispatcher does not run the tools beside it: %v %s", err, v)
	}
	rec, err := bininstall.LoadRecord(filepath.Join(e.home, ".config", "tma", bininstall.RecordName))
	if in := rec.For(gobin); err != nil || in == nil || strings.Join(in.Files, " ") != "tma" || in.Fzf {
		t.Errorf("the install record: %+v %v", in, err)
	}
	if out, code := run("install-dispatcher"); code != 0 || !strings.Contains(out, "already this version's dispatcher") {
		t.Errorf("a re-run: exit %d\n%s", code, out)
	}
	other := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := []byte("#!/bin/sh\necho another tma\n")
	if err := os.WriteFile(filepath.Join(other, "tma"), foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := run("install-dispatcher", "--bindir", other); code == 0 || !strings.Contains(out, "is not tma's dispatcher") {
		t.Errorf("a foreign tma was not refused: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "tma")); !bytes.Equal(b, foreign) {
		t.Error("the refused install changed the foreign tma")
	}
	if out, code := run("install-dispatcher", "--bindir", other, "--force"); code != 0 {
		t.Errorf("--force: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "tma")); !bytes.Equal(b, want) {
		t.Error("--force did not write the dispatcher")
	}
}
