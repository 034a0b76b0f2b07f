package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tmaEnv runs the dispatcher with extra environment on top of e.tma's.
func (e *env) tmaEnv(extra []string, args ...string) (string, string, int) {
	e.t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(binDir, "tma"), "-L", e.s.Name}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG_DIR=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, extra...)
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const sourceLine = `source-file -qF "#{?#{m:/*,$XDG_CONFIG_HOME},$XDG_CONFIG_HOME,$HOME/.config}/tma/tmux.conf" # tma keys`

// TestInstallKeysRoundTrip installs, checks, re-installs, adds the mouse
// group and uninstalls against a user's own ~/.tmux.conf, whose bytes must
// come back exactly.
func TestInstallKeysRoundTrip(t *testing.T) {
	e := newEnv(t, "")
	conf := filepath.Join(e.home, ".tmux.conf")
	mine := "set -g prefix C-a\nbind r source-file ~/.tmux.conf\n# my own tma notes\nset -g status-right '#(tma status) %H:%M'" // no final newline
	if err := os.WriteFile(conf, []byte(mine), 0o640); err != nil {
		t.Fatal(err)
	}
	managed := filepath.Join(e.home, ".config", "tma", "tmux.conf")

	// Without the launcher, #(tma status) is the driver to add.
	if out, _, _ := e.tma("install-keys", "--no-daemon", "--conf", filepath.Join(t.TempDir(), "c.conf"), "--config-dir", t.TempDir(), "--yes"); !strings.Contains(out, "tma: reminder: add `#(tma status)` to your `status-right` for the ambient state driver") {
		t.Errorf("install-keys --no-daemon's reminder:\n%s", out)
	}

	// No terminal, no --yes: declined, nothing written.
	if _, _, code := e.tma("install-keys"); code != 1 {
		t.Errorf("unconfirmed install: exit %d, want 1", code)
	}
	if read(t, conf) != mine {
		t.Fatal("a declined install changed the tmux config")
	}

	out, errs, code := e.tma("install-keys", "--yes")
	if code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"tma: proposed change to ~/.config/tma/tmux.conf (tma keybindings):",
		"tma: proposed change to ~/.tmux.conf (tma keys source-file):",
		"  + " + sourceLine,
		"tma: installed keybindings (~/.config/tma/tmux.conf). Reload with `tmux source-file ~/.tmux.conf`.",
		// With the launcher, the option its daemon keeps (issue 29 item 5).
		"tma: reminder: add `#{E:@tma_status}` to your `status-right` for tma's counts: the daemon the launcher starts keeps it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	if got := read(t, conf); got != mine+"\n"+sourceLine {
		t.Errorf("tmux config after install:\n%q", got)
	}
	m := read(t, managed)
	// The bindings run tma by its absolute path (issue 29 item 2).
	tma := filepath.Join(binDir, "tma")
	for _, want := range []string{
		"# tma keybindings, managed by `tma install-keys`. Do not hand-edit; re-run to update,\n# or `tma install-keys --uninstall` to remove.\n",
		"bind-key a display-popup -E -w 80% -h 60% '" + tma + "'\n",
		"bind-key G run-shell '" + tma + " watch --temporary-session --table --client \"#{client_name}\"'\n",
		"bind-key g run-shell '" + tma + " jump --blocked --client \"#{client_name}\"'\n",
		"bind-key A run-shell '" + tma + " act --menu --pane \"#{pane_id}\"'\n",
		"run-shell -b '" + tma + " --socket-path \"#{socket_path}\" daemon --ensure >/dev/null 2>&1'\n",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("managed file lacks %q", want)
		}
	}
	if strings.Contains(m, "Mouse") {
		t.Error("mouse bindings without --mouse")
	}
	if out, _, code := e.tma("install-keys", "--check"); code != 0 {
		t.Errorf("check after install: exit %d\n%s", code, out)
	}
	if out, _, _ := e.tma("install-keys", "--yes"); !strings.Contains(out, "already installed") || strings.Contains(out, "proposed change") {
		t.Errorf("re-install is not a no-op:\n%s", out)
	}
	if _, _, code := e.tma("install-keys", "--check", "--mouse"); code != 1 {
		t.Errorf("--check --mouse without the group: exit %d, want 1", code)
	}
	if _, _, code := e.tma("install-keys", "--check", "--no-daemon"); code != 1 {
		t.Errorf("--check --no-daemon with the daemon line: exit %d, want 1", code)
	}
	if _, errs, code := e.tma("install-keys", "--yes", "--mouse"); code != 0 {
		t.Fatalf("install --mouse: %s", errs)
	}
	for _, k := range []string{"MouseDown1Status ", "MouseDown1StatusRight ", "MouseDown3Status ", "MouseDown3StatusRight "} {
		if !strings.Contains(read(t, managed), "bind-key -n "+k) {
			t.Errorf("--mouse lacks %s", k)
		}
	}
	for _, args := range [][]string{{"--check"}, {"--check", "--mouse"}} {
		if out, _, code := e.tma(append([]string{"install-keys"}, args...)...); code != 0 {
			t.Errorf("install-keys %v: exit %d\n%s", args, code, out)
		}
	}

	// The managed file parses in tmux and binds the keys.
	if out, err := e.s.Run("source-file", managed); err != nil {
		t.Fatalf("tmux rejects the managed file: %v %s", err, out)
	}
	keys := e.s.MustRun("list-keys")
	for _, want := range []string{tma + " jump --blocked", tma + " jump --attention", tma + " jump --back", tma + " jump --home", tma + " watch --temporary-session --table", "MouseDown3StatusRight"} {
		if !strings.Contains(keys, want) {
			t.Errorf("tmux has no binding running %q", want)
		}
	}

	// A hand edit is drift.
	if err := os.WriteFile(managed, []byte(read(t, managed)+"bind-key x kill-server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := e.tma("install-keys", "--check"); code != 1 {
		t.Errorf("--check on an edited file: exit %d, want 1", code)
	}

	out, errs, code = e.tma("install-keys", "--uninstall", "--yes")
	if code != 0 {
		t.Fatalf("uninstall: exit %d\n%s%s", code, out, errs)
	}
	if got := read(t, conf); got != mine {
		t.Errorf("uninstall did not give back the user's bytes:\n%q", got)
	}
	if _, err := os.Stat(managed); !os.IsNotExist(err) {
		t.Errorf("managed file still there: %v", err)
	}
	if _, _, code := e.tma("install-keys", "--check"); code != 1 {
		t.Errorf("--check after uninstall: exit %d, want 1", code)
	}
}

// TestInstallKeysWhichConfig covers the load-order choice and creation rule,
// and a pinned config dir.
func TestInstallKeysWhichConfig(t *testing.T) {
	// No tmux config, ~/.config present: ~/.config/tmux/tmux.conf is created.
	e := newEnv(t, "")
	if err := os.MkdirAll(filepath.Join(e.home, ".config"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.tma("install-keys", "--yes", "--no-daemon"); code != 0 {
		t.Fatalf("install: %s", errs)
	}
	if got := read(t, filepath.Join(e.home, ".config", "tmux", "tmux.conf")); got != sourceLine+"\n" {
		t.Errorf("created config = %q", got)
	}
	if strings.Contains(read(t, filepath.Join(e.home, ".config", "tma", "tmux.conf")), "daemon") {
		t.Error("--no-daemon wrote the daemon line")
	}
	if _, _, code := e.tma("install-keys", "--check", "--no-daemon"); code != 0 {
		t.Error("--check --no-daemon after --no-daemon install")
	}
	if _, _, code := e.tma("install-keys", "--check"); code != 1 {
		t.Error("plain --check must call a missing daemon line drift")
	}

	// Nothing at all: ~/.tmux.conf.
	e2 := newEnv(t, "")
	if _, errs, code := e2.tma("install-keys", "--yes"); code != 0 {
		t.Fatalf("install: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(e2.home, ".tmux.conf")); err != nil {
		t.Errorf("no ~/.tmux.conf created: %v", err)
	}

	// XDG_CONFIG_HOME set, an existing XDG tmux config; a pinned dir with a space.
	e3 := newEnv(t, "")
	xdg := filepath.Join(e3.home, "xdg")
	xconf := filepath.Join(xdg, "tmux", "tmux.conf")
	if err := os.MkdirAll(filepath.Dir(xconf), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(xconf, []byte("set -g mouse on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pinned := filepath.Join(e3.home, "my conf")
	if _, errs, code := e3.tmaEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "install-keys", "--yes", "--config-dir", pinned); code != 0 {
		t.Fatalf("install: %s", errs)
	}
	if got, want := read(t, xconf), "set -g mouse on\nsource-file -q \""+pinned+"/tmux.conf\" # tma keys\n"; got != want {
		t.Errorf("xdg config = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(pinned, "tmux.conf")); err != nil {
		t.Errorf("managed file not in the pinned dir: %v", err)
	}
	if out, err := e3.s.Run("source-file", xconf); err != nil {
		t.Errorf("tmux rejects the pinned line: %v %s", err, out)
	}
	if !strings.Contains(e3.s.MustRun("list-keys"), "tma jump --blocked") {
		t.Error("the pinned source line did not load the bindings")
	}
	// --conf overrides the choice.
	other := filepath.Join(e3.home, "other.conf")
	if _, errs, code := e3.tmaEnv([]string{"TMA_CONFIG_DIR=" + pinned}, "install-keys", "--yes", "--conf", other); code != 0 {
		t.Fatalf("install --conf: %s", errs)
	}
	if !strings.Contains(read(t, other), "# tma keys") {
		t.Error("--conf not honoured")
	}
}

// TestPrefixKeysJumpAndReturn presses prefix g and prefix b on a real
// client with the installed bindings loaded.
func TestPrefixKeysJumpAndReturn(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	if _, errs, code := e.tma("install-keys", "--yes", "--no-daemon"); code != 0 {
		t.Fatalf("install-keys: %s", errs)
	}
	e.s.MustRun("set-environment", "-g", "PATH", binDir+":"+os.Getenv("PATH"))
	e.s.MustRun("set-environment", "-g", "HOME", e.home)
	e.s.MustRun("source-file", filepath.Join(e.home, ".config", "tma", "tmux.conf"))
	home := e.window("s", "sleep 600")
	c := e.attach(home)
	c.keys("\x02g") // C-b g
	c.waitPane(a.Pane, "prefix g")
	c.keys("\x02b")
	c.waitPane(home, "prefix b")
}

// TestSourceLineLoadsOneFile: the managed source-file line loads exactly
// one managed file, the one install-keys writes, whatever XDG_CONFIG_HOME
// the server was started with. The old line named both the
// $XDG_CONFIG_HOME and the ~/.config file, so XDG_CONFIG_HOME=~/.config
// loaded the file twice (every binding and the daemon launcher ran twice),
// as did a stale copy left under ~/.config.
func TestSourceLineLoadsOneFile(t *testing.T) {
	e := newEnv(t, "")
	conf := filepath.Join(e.home, ".tmux.conf")
	if _, errs, code := e.tma("install-keys", "--yes", "--no-daemon"); code != 0 {
		t.Fatalf("install-keys: %s", errs)
	}
	line := strings.TrimSpace(read(t, conf))
	if line != sourceLine {
		t.Fatalf("source line = %q", line)
	}
	other := filepath.Join(e.home, "xdg")
	// Each managed file appends its own name to @loads when sourced.
	for _, d := range []string{filepath.Join(e.home, ".config"), other} {
		if err := os.MkdirAll(filepath.Join(d, "tma"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "tma", "tmux.conf"), []byte("set -ga @loads '"+filepath.Base(d)+" '\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.s.MustRun("set-environment", "-g", "HOME", e.home)
	for _, c := range []struct{ xdg, want string }{
		{"", ".config "},
		{filepath.Join(e.home, ".config"), ".config "},
		{other, "xdg "},
		{"relative/dir", ".config "}, // not absolute: ignored, as tma ignores it
	} {
		if c.xdg == "" {
			e.s.MustRun("set-environment", "-gu", "XDG_CONFIG_HOME")
		} else {
			e.s.MustRun("set-environment", "-g", "XDG_CONFIG_HOME", c.xdg)
		}
		e.s.MustRun("set-option", "-gu", "@loads")
		e.s.MustRun("source-file", conf)
		if got := e.s.MustRun("show-options", "-gqv", "@loads"); strings.TrimRight(got, "\n") != c.want {
			t.Errorf("XDG_CONFIG_HOME=%q: the source line loaded %q, want %q", c.xdg, got, c.want)
		}
	}
}

// TestKeysRunOnAServerWithoutTmaOnPath: a tmux server started before the
// install has a PATH without the install dir, and a binding that calls a
// bare tma fails there with 127 and nothing on screen. The managed file
// names tma's absolute path, so prefix g jumps on such a server, and doctor
// says what each binding runs; a binding left calling a bare tma, or a path
// that is gone, is a warning.
func TestKeysRunOnAServerWithoutTmaOnPath(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	if _, errs, code := e.tma("install-keys", "--yes", "--no-daemon"); code != 0 {
		t.Fatalf("install-keys: %s", errs)
	}
	e.s.MustRun("set-environment", "-g", "PATH", "/usr/bin:/bin")
	e.s.MustRun("set-environment", "-g", "HOME", e.home)
	e.s.MustRun("source-file", filepath.Join(e.home, ".config", "tma", "tmux.conf"))
	out, _, _ := e.tma("doctor")
	if want := "keys:    A G a b g h j run " + filepath.Join(binDir, "tma") + " ✓"; !strings.Contains(out, want) {
		t.Errorf("doctor lacks %q:\n%s", want, out)
	}
	home := e.window("s", "sleep 600")
	c := e.attach(home)
	c.keys("\x02g") // C-b g
	c.waitPane(a.Pane, "prefix g on a server whose PATH lacks tma")

	// What an install-keys before this one wrote: a bare tma.
	e.s.MustRun("bind-key", "g", "run-shell", `tma jump --blocked --client "#{client_name}"`)
	out, _, _ = e.tma("doctor", "--exit-code")
	if want := "g run `tma`, which is not on the tmux server's PATH (/usr/bin:/bin): tmux fails them with 127"; !strings.Contains(out, want) {
		t.Errorf("doctor lacks %q:\n%s", want, out)
	}
	// An install left behind (an upgrade into another directory): the keys
	// still run, but not this tma.
	oldBin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(oldBin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oldBin, "tma"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.s.MustRun("bind-key", "g", "run-shell", filepath.Join(oldBin, "tma")+" jump --blocked")
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "g run "+filepath.Join(oldBin, "tma")+" ✓, not this tma ("+filepath.Join(binDir, "tma")+"): re-run `tma install-keys`") {
		t.Errorf("doctor on keys bound to another install:\n%s", out)
	}
	e.s.MustRun("bind-key", "g", "run-shell", "/gone/bin/tma jump --blocked")
	if out, _, code := e.tma("doctor", "--exit-code"); !strings.Contains(out, "g run /gone/bin/tma, which is not an executable file") || code != 1 {
		t.Errorf("doctor on a binding whose tma is gone: exit %d\n%s", code, out)
	}
	// A hand-edited or older managed file is drift, and says which tma it runs.
	managed := filepath.Join(e.home, ".config", "tma", "tmux.conf")
	old := strings.ReplaceAll(read(t, managed), filepath.Join(binDir, "tma")+" ", "tma ")
	old = strings.ReplaceAll(old, "'"+filepath.Join(binDir, "tma")+"'", "'tma'")
	if err := os.WriteFile(managed, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := e.tma("install-keys", "--check", "--no-daemon"); code != 1 || !strings.Contains(out, "runs tma, not this tma ("+filepath.Join(binDir, "tma")+")") {
		t.Errorf("--check on a file naming a bare tma: exit %d\n%s", code, out)
	}
	if out, _, code := e.tma("install-keys", "--yes", "--no-daemon"); code != 0 || !strings.Contains(out, "+ bind-key g run-shell '"+filepath.Join(binDir, "tma")) {
		t.Errorf("re-install does not rewrite the path: exit %d\n%s", code, out)
	}
}

// TestInstallKeysNamesWhatItShadows: a server carrying three of the
// commonest customisations (vim-style pane moves, C-a's send-prefix):
// install-keys' diff names each binding it would replace, and a [keys]
// table choosing other keys binds those and leaves the user's alone.
func TestInstallKeysNamesWhatItShadows(t *testing.T) {
	e := newEnv(t, "")
	e.s.MustRun("bind-key", "h", "select-pane", "-L")
	e.s.MustRun("bind-key", "j", "select-pane", "-D")
	e.s.MustRun("bind-key", "a", "send-prefix")
	out, errs, code := e.tma("install-keys", "--yes", "--no-daemon")
	if code != 0 {
		t.Fatalf("install-keys: exit %d\n%s%s", code, out, errs)
	}
	diffAt := strings.Index(out, "tma: proposed change to ~/.config/tma/tmux.conf")
	for _, want := range []string{
		"  note: replaces your prefix h: select-pane -L\n",
		"  note: replaces your prefix j: select-pane -D\n",
		"  note: replaces your prefix a: send-prefix\n",
	} {
		if i := strings.Index(out, want); i < diffAt || i < 0 {
			t.Errorf("the keys' diff does not name %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "note: replaces") != 3 {
		t.Errorf("install-keys names bindings it does not replace:\n%s", out)
	}

	// Keys chosen in config.toml: the file binds those, and the user's h, j
	// and a stay theirs.
	cfg := filepath.Join(e.home, ".config", "tma", "config.toml")
	if err := os.WriteFile(cfg, []byte("[keys]\npicker = \"F5\"\nattention = \"J\"\nhome = \"H\"\nblocked = \"none\"\nmenu = \"M-a\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code = e.tma("install-keys", "--yes", "--no-daemon")
	if code != 0 {
		t.Fatalf("install-keys with [keys]: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, "note: replaces") {
		t.Errorf("chosen keys shadow nothing, yet:\n%s", out)
	}
	if _, _, code := e.tma("install-keys", "--check", "--no-daemon"); code != 0 {
		t.Error("--check after an install with [keys]")
	}
	// A fresh server: the user's own bindings, then the source line.
	e.s.MustRun("unbind-key", "-a", "-T", "prefix")
	e.s.MustRun("bind-key", "h", "select-pane", "-L")
	e.s.MustRun("bind-key", "j", "select-pane", "-D")
	e.s.MustRun("bind-key", "a", "send-prefix")
	e.s.MustRun("source-file", filepath.Join(e.home, ".config", "tma", "tmux.conf"))
	bound := map[string]string{}
	for _, l := range strings.Split(e.s.MustRun("list-keys", "-T", "prefix"), "\n") {
		if f := strings.Fields(l); len(f) > 4 {
			bound[f[3]] = strings.Join(f[4:], " ")
		}
	}
	tma := filepath.Join(binDir, "tma")
	for key, want := range map[string]string{
		"F5": "display-popup", "J": tma + " jump --attention", "H": tma + " jump --home", "M-a": tma + " act --menu",
		"G": tma + " watch", "b": tma + " jump --back",
		"h": "select-pane -L", "j": "select-pane -D", "a": "send-prefix",
	} {
		if !strings.Contains(bound[key], want) {
			t.Errorf("prefix %s is bound to %q, want %q", key, bound[key], want)
		}
	}
	if _, ok := bound["g"]; ok {
		t.Errorf("blocked = \"none\" still bound prefix g: %s", bound["g"])
	}

	// A chosen key that is another binding's, or no key at all, is an
	// error naming the config and the binding.
	if err := os.WriteFile(cfg, []byte("[keys]\nblocked = \"a\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.tma("install-keys", "--yes"); code != 1 || !strings.Contains(errs, cfg+": [keys] blocked: \"a\" is picker's key too") {
		t.Errorf("a clashing [keys]: exit %d, %s", code, errs)
	}
	if err := os.WriteFile(cfg, []byte("[keys]\nhome = \"two words\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.tma("install-keys", "--yes"); code != 1 || !strings.Contains(errs, "keys.home") {
		t.Errorf("a bad [keys] key: exit %d, %s", code, errs)
	}
}
