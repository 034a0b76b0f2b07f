package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/testkit"
)

func tmaPath(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(filepath.Dir(exe), "tma")
}

// newServer starts an isolated server before newHome narrows PATH, naming
// tmux by its absolute path so later calls still find it.
func newServer(t *testing.T) *testkit.Server {
	if p, err := exec.LookPath(testkit.TmuxBin()); err == nil {
		t.Setenv("TMA_TMUX_BIN", p)
	}
	return testkit.NewServer(t)
}

func ours(s *testkit.Server) []string {
	out, _ := s.Run("show-hooks", "-g", "after-select-pane", ";", "show-hooks", "-g", "session-window-changed", ";",
		"show-hooks", "-g", "pane-focus-in", ";", "show-hooks", "-g", "after-select-window")
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "clear-attention") {
			ls = append(ls, l)
		}
	}
	return ls
}

func TestTmuxHooksLifecycle(t *testing.T) {
	s := newServer(t)
	newHome(t)
	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	s.MustRun("set-hook", "-ga", "after-select-pane", "display -p mine")
	tp := tmaPath(t)

	r := tma(t, "install-hooks", "claude", "--yes")
	must(t, r, 0, "installed tmux hooks after-select-pane, session-window-changed on "+s.Socket)
	got := ours(s)
	want := []string{
		"after-select-pane[1] " + install.ClearCommand(tp, "after-select-pane"),
		"session-window-changed[0] " + install.ClearCommand(tp, "session-window-changed"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(install.ClearCommand("/usr/local/bin/tma", "after-select-pane"), `run-shell "if [ -x '/usr/local/bin/tma' ]; then TMA_HOOK_KIND=after-select-pane '/usr/local/bin/tma' clear-attention '#{pane_id}' 2>/dev/null || true; else TMA_HOOK_KIND=after-select-pane tma clear-attention '#{pane_id}' 2>/dev/null || true; fi"`) {
		t.Fatal("the command is not the manual's shape")
	}
	// Idempotent: a second install adds nothing.
	r = tma(t, "install-hooks", "claude", "--yes")
	must(t, r, 0)
	if strings.Contains(r.stdout, "installed tmux hooks") || len(ours(s)) != 2 {
		t.Fatalf("re-install touched the hooks:\n%s\n%v", r, ours(s))
	}
	must(t, tma(t, "install-hooks", "--check"), 0, "hooks OK")

	// Wiped (the record says installed) versus missing (no record).
	s.MustRun("set-hook", "-gu", "after-select-pane[1]")
	s.MustRun("set-hook", "-gu", "session-window-changed[0]")
	must(t, tma(t, "install-hooks", "--check"), 1,
		"tmux hook after-select-pane wiped (installed but not present on this server, likely restarted)",
		"tmux hook session-window-changed wiped")
	rec := filepath.Join(os.Getenv("HOME"), ".config", "tma", "install-state.toml")
	saved, _ := os.ReadFile(rec)
	os.Remove(rec)
	must(t, tma(t, "install-hooks", "--check"), 1, "tmux hook after-select-pane missing (config reload?)")
	os.WriteFile(rec, saved, 0o600)

	// Stale: an older tma path, and an older tma's after-select-window entry.
	s.MustRun("set-hook", "-ga", "after-select-pane", install.ClearCommand("/old/bin/tma", "after-select-pane"))
	s.MustRun("set-hook", "-ga", "after-select-window", install.ClearCommand("/old/bin/tma", "after-select-window"))
	must(t, tma(t, "install-hooks", "--check"), 1, "tmux hook after-select-pane stale", "after-select-window carries tma's attention clear")
	must(t, tma(t, "install-hooks", "claude", "--yes"), 0, "installed tmux hooks")
	got = ours(s)
	if len(got) != 2 || strings.Contains(strings.Join(got, "\n"), "/old/") || strings.Contains(strings.Join(got, "\n"), "after-select-window") {
		t.Fatalf("stale hooks not rewritten in place:\n%s", strings.Join(got, "\n"))
	}
	must(t, tma(t, "install-hooks", "--check"), 0, "hooks OK")
	if out := s.MustRun("show-hooks", "-g", "after-select-pane"); !strings.Contains(out, "display-message -p mine") {
		t.Fatalf("the user's own hook entry is gone:\n%s", out)
	}
}

func TestLastUninstallClearsTheServer(t *testing.T) {
	s := newServer(t)
	newHome(t)
	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	s.MustRun("set-hook", "-ga", "after-select-pane", "display -p mine")
	s.MustRun("set", "-g", "status-right", "#(tma status) %H:%M")
	must(t, tma(t, "install-hooks", "claude", "--yes"), 0)
	must(t, tma(t, "install-hooks", "pi", "--yes"), 0)
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	win := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{window_id}"))
	s.MustRun("set", "-p", "-t", pane, "@agent_state", "idle")
	s.MustRun("set", "-p", "-t", pane, "@agent_attention", "1")
	s.MustRun("set", "-p", "-t", pane, "@agent_ignore", "1")
	s.MustRun("set", "-p", "-t", pane, "@other", "x")
	s.MustRun("set", "-w", "-t", win, "@agent_summary", "idle:1")

	// Not the last: the server keeps everything.
	r := tma(t, "install-hooks", "claude", "--uninstall", "--yes")
	must(t, r, 0, "uninstalled hooks for claude")
	if len(ours(s)) != 2 || s.Option(pane, "@agent_state") != "idle" {
		t.Fatal("a non-last uninstall cleared the server")
	}
	// The last one clears the hooks and every @agent_* but @agent_ignore.
	r = tma(t, "install-hooks", "pi", "--uninstall", "--yes")
	must(t, r, 0, "removed the tmux hooks", "cleared tma's @agent_* options", "reminder: your status-right still runs `tma status`")
	if len(ours(s)) != 0 {
		t.Fatalf("hooks left: %v", ours(s))
	}
	for opt, want := range map[string]string{"@agent_state": "", "@agent_attention": "", "@agent_ignore": "1", "@other": "x"} {
		if got := s.Option(pane, opt); got != want {
			t.Errorf("%s = %q, want %q", opt, got, want)
		}
	}
	if out, _ := s.Run("show-options", "-wqv", "-t", win, "@agent_summary"); strings.TrimSpace(out) != "" {
		t.Errorf("window rollup left: %q", out)
	}
	if out := s.MustRun("show-hooks", "-g", "after-select-pane"); !strings.Contains(out, "display-message -p mine") {
		t.Fatal("the user's hook went with tma's")
	}
	if s.MustRun("show-options", "-gv", "status-right") != "#(tma status) %H:%M\n" {
		t.Fatal("status-right edited")
	}
	must(t, tma(t, "install-hooks", "--check"), 1, "no agent is wired", "tmux hook after-select-pane missing (config reload?)")
}

func TestFocusHook(t *testing.T) {
	s := newServer(t)
	h := newHome(t)
	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	h.write("tma.toml", "[focus]\nevents = true\n")
	t.Setenv("TMA_CONFIG", h.path("tma.toml"))
	must(t, tma(t, "install-hooks", "gemini", "--yes"), 0, "after-select-pane, session-window-changed, pane-focus-in")
	got := strings.Join(ours(s), "\n")
	want := "pane-focus-in[0] " + install.ClearCommand(tmaPath(t), "pane-focus-in")
	if !strings.Contains(got, want) || strings.Contains(want, "TMA_HOOK_KIND") {
		out, err := s.Run("show-hooks", "-g")
		t.Fatalf("focus hook:\n%s\n%s %v", got, out, err)
	}
	// Turning the posture off: check flags it, install removes it.
	t.Setenv("TMA_CONFIG", "")
	must(t, tma(t, "install-hooks", "--check"), 1, "pane-focus-in carries tma's attention clear")
	must(t, tma(t, "install-hooks", "gemini", "--yes"), 0)
	if strings.Contains(strings.Join(ours(s), "\n"), "pane-focus-in") {
		t.Fatal("focus hook kept after the posture changed")
	}
}

func TestInstallWithoutServer(t *testing.T) {
	newHome(t)
	r := tma(t, "install-hooks", "claude", "--yes")
	must(t, r, 0, "installed hooks for claude", "no tmux server on")
	must(t, tma(t, "install-hooks", "--check"), 0, "hooks OK", "tmux hooks were not checked")
}
