package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// plugin is a TPM plugin dir holding tma.tmux as TPM clones it.
func plugin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "tma.tmux"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tma")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tma.tmux"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// toolsPath is a PATH of one dir holding only what tma.tmux runs besides
// tma (no tma, no go unless asked), and the tmux of the test server under
// the name tmux.
func toolsPath(t *testing.T, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range append([]string{"dirname", "cat", "mkdir", "rm", "mktemp", "head", "awk", "sleep", "cp", "sh"}, extra...) {
		p := testkit.Need(t, tool)
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	tm, err := exec.LookPath(testkit.TmuxBin())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tm, filepath.Join(dir, "tmux")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// linkTools puts the built tools into dir (hard links, so each tool's own
// path is in dir, as a build into the plugin leaves them).
func linkTools(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(binDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		from, to := filepath.Join(binDir, e.Name()), filepath.Join(dir, e.Name())
		if err := os.Link(from, to); err != nil {
			b, rerr := os.ReadFile(from)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if err := os.WriteFile(to, b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// pluginServer gives the test server the environment TPM's run-shell
// passes on: this test's HOME and runtime dir, and the PATH given.
func (e *env) pluginServer(path string) {
	for _, kv := range [][2]string{{"PATH", path}, {"HOME", e.home}, {"XDG_RUNTIME_DIR", e.run}} {
		e.s.MustRun("set-environment", "-g", kv[0], kv[1])
	}
	for _, k := range []string{"XDG_CONFIG_HOME", "TMA_CONFIG", "TMA_CONFIG_DIR", "TMA_SOCKET_PATH"} {
		e.s.MustRun("set-environment", "-gu", k)
	}
	e.t.Cleanup(e.stopDaemon)
}

func (e *env) prefixKeys() map[string]string {
	bound := map[string]string{}
	for _, b := range strings.Split(e.s.MustRun("list-keys"), "\n") {
		if f := strings.Fields(b); len(f) > 4 && f[0] == "bind-key" {
			bound[f[2]+" "+f[3]] = strings.Join(f[4:], " ")
		}
	}
	return bound
}

// TestPluginBindsChosenKeysAndStartsTheDaemon runs tma.tmux as TPM does
// (run-shell) on a server whose PATH has no tma: it finds the plugin's own
// bin/tma, binds the keys the @tma-* options choose (the others at their
// defaults, by the absolute path), and starts the daemon; a second run
// (prefix I again, or a reload) changes nothing.
func TestPluginBindsChosenKeysAndStartsTheDaemon(t *testing.T) {
	e := newEnv(t, "")
	dir := plugin(t)
	linkTools(t, filepath.Join(dir, "bin"))
	e.pluginServer(toolsPath(t))
	e.s.MustRun("set-option", "-g", "@tma-key-blocked", "B")
	e.s.MustRun("set-option", "-g", "@tma-key-picker", "none")
	e.s.MustRun("set-option", "-g", "@tma-mouse", "on")
	// The user's own binding on a key the plugin takes is named.
	e.s.MustRun("bind-key", "h", "select-pane", "-L")
	tma := filepath.Join(dir, "bin", "tma")
	for run := 1; run <= 2; run++ {
		if out, err := e.s.Run("run-shell", filepath.Join(dir, "tma.tmux")); err != nil {
			t.Fatalf("run-shell tma.tmux: %v %s", err, out)
		}
		got := strings.TrimSpace(e.s.MustRun("show-options", "-gqv", "@tma-plugin-status"))
		want := "keys bound from " + tma
		switch {
		case run == 1 && (!strings.HasPrefix(got, want+"; replaces your prefix h: select-pane -L; ") ||
			!strings.Contains(got, "replaces tmux's default root MouseDown1Status: ") || !strings.HasSuffix(got, " (@tma-key-<name> moves a key)")):
			t.Errorf("run 1: @tma-plugin-status = %q, want the bindings it replaced named", got)
		case run == 2 && got != want:
			// The second run replaces only tma's own bindings.
			t.Errorf("run 2: @tma-plugin-status = %q, want %q", got, want)
		}
	}
	bound := e.prefixKeys()
	for key, want := range map[string]string{
		"prefix B": tma + " jump --blocked", "prefix j": tma + " jump --attention", "prefix G": tma + " watch",
		"prefix A": tma + " act --menu", "root MouseDown1Status": tma + " jump --blocked",
	} {
		if !strings.Contains(bound[key], want) {
			t.Errorf("%s is bound to %q, want %q", key, bound[key], want)
		}
	}
	for _, key := range []string{"prefix a", "prefix g"} {
		if cmd, ok := bound[key]; ok {
			t.Errorf("%s is bound (%s), the options moved or dropped it", key, cmd)
		}
	}
	if r := e.running(); r == nil {
		t.Fatalf("no daemon after tma.tmux\nlog:\n%s", e.daemonLog())
	}
	if n := daemonsOf(e.s.Socket); n != 1 {
		t.Errorf("%d daemons after two runs", n)
	}
}

// TestPluginWithoutTmaOrGo: no tma anywhere and no Go to build it: the
// plugin says the one-line install command and binds nothing.
func TestPluginWithoutTmaOrGo(t *testing.T) {
	e := newEnv(t, "")
	dir := plugin(t)
	e.pluginServer(toolsPath(t))
	if out, err := e.s.Run("run-shell", filepath.Join(dir, "tma.tmux")); err != nil {
		t.Fatalf("run-shell tma.tmux: %v %s", err, out)
	}
	got := e.s.MustRun("show-options", "-gqv", "@tma-plugin-status")
	if !strings.Contains(got, "tma is not installed and there is no Go to build it: run  curl -fsSL https://raw.githubusercontent.com/tmaproject/tma/main/scripts/install.sh | sh") {
		t.Errorf("@tma-plugin-status = %q", got)
	}
	if strings.Contains(e.s.MustRun("list-keys"), "tma ") {
		t.Error("keys bound with no tma")
	}
}

// TestPluginBuildsInTheBackground: no tma but Go and make: run-shell
// returns at once with the build under way (what tmux shows meanwhile),
// and when the build has put tma into the plugin's bin/ the keys bind and
// the daemon starts. The Makefile here stands in for the real one's
// install target (which takes minutes), so what is tested is the plugin's
// part.
func TestPluginBuildsInTheBackground(t *testing.T) {
	e := newEnv(t, "")
	dir := plugin(t)
	mk := "install:\n\tsleep 1\n\tmkdir -p $(PREFIX)/bin\n\tcp -l " + binDir + "/* $(PREFIX)/bin/ 2>/dev/null || cp " + binDir + "/* $(PREFIX)/bin/\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	path := toolsPath(t, "make")
	if err := os.WriteFile(filepath.Join(path, "go"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.pluginServer(path)
	if out, err := e.s.Run("run-shell", filepath.Join(dir, "tma.tmux")); err != nil {
		t.Fatalf("run-shell tma.tmux: %v %s", err, out)
	}
	if got := e.s.MustRun("show-options", "-gqv", "@tma-plugin-status"); !strings.Contains(got, "building tma with Go into "+dir+"/bin") {
		t.Errorf("@tma-plugin-status right after run-shell = %q", got)
	}
	if strings.Contains(e.s.MustRun("list-keys"), "tma jump") {
		t.Error("keys bound before the build finished")
	}
	// A second run while building starts no second build.
	if out, err := e.s.Run("run-shell", filepath.Join(dir, "tma.tmux")); err != nil {
		t.Fatalf("run-shell tma.tmux: %v %s", err, out)
	}
	if got := e.s.MustRun("show-options", "-gqv", "@tma-plugin-status"); !strings.Contains(got, "still being built") {
		t.Errorf("@tma-plugin-status on a second run during the build = %q", got)
	}
	tma := filepath.Join(dir, "bin", "tma")
	e.s.WaitFor(func() bool {
		return strings.TrimSpace(e.s.MustRun("show-options", "-gqv", "@tma-plugin-status")) == "keys bound from "+tma
	}, "the keys bound after the build")
	if !strings.Contains(e.prefixKeys()["prefix g"], tma+" jump --blocked") {
		t.Errorf("prefix g after the build: %q", e.prefixKeys()["prefix g"])
	}
	e.s.WaitFor(func() bool { return e.running() != nil }, "the daemon after the build")
	if _, err := os.Stat(filepath.Join(dir, ".tma-build")); !os.IsNotExist(err) {
		t.Errorf("the build lock is left behind: %v", err)
	}
}

// TestPluginBadOption: an option that cannot be bound is said in the
// message line, naming it, and nothing is bound.
func TestPluginBadOption(t *testing.T) {
	e := newEnv(t, "")
	dir := plugin(t)
	linkTools(t, filepath.Join(dir, "bin"))
	e.pluginServer(toolsPath(t))
	e.s.MustRun("set-option", "-g", "@tma-key-home", "j")
	e.s.MustRun("set-option", "-g", "@tma-daemon", "off")
	if out, err := e.s.Run("run-shell", filepath.Join(dir, "tma.tmux")); err != nil {
		t.Fatalf("run-shell tma.tmux: %v %s", err, out)
	}
	if got := e.s.MustRun("show-options", "-gqv", "@tma-plugin-status"); !strings.Contains(got, `@tma-key-home: "j" is attention's key too`) {
		t.Errorf("@tma-plugin-status = %q", got)
	}
	if strings.Contains(e.s.MustRun("list-keys"), "tma jump") {
		t.Error("keys bound from a bad option")
	}
	if e.running() != nil {
		t.Error("a daemon started")
	}
}
