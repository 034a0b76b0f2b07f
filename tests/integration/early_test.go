package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// A one-shot scan starts its list before kong has run, from the words and
// the config: a config naming another tmux binary is the binary that
// lists, once, and the rows are the same.
func TestConfigTmuxBinWinsOverTheEarlyList(t *testing.T) {
	wrapper, log := countingTmux(t)
	e := newEnv(t, "[tmux]\nbin = \""+wrapper+"\"\n")
	a := e.s.StartAgent("claude", claudeIdle)
	out, errs, code := e.tmaEnv([]string{"TMA_TMUX_BIN="}, "ls")
	if code != 0 {
		t.Fatalf("tma ls: %d %s", code, errs)
	}
	if !strings.Contains(out, a.Pane+"\tclaude\tidle") {
		t.Errorf("tma ls through the configured binary:\n%s", out)
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "list-panes"); n != 1 {
		t.Errorf("the configured binary listed %d times, want 1: %q", n, b)
	}
}

// tma-scan starts its list from an init function (lib/tmux/prelist) and
// the scan takes that call over: with no config, a cycle through a counting
// binary lists once, for tma ls (through the dispatcher) and for the raw
// pipeline's tma-scan alike, and the cycle sees the agent.
func TestPrestartedListIsTheOnlyList(t *testing.T) {
	wrapper, log := countingTmux(t)
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	out, errs, code := e.tmaEnv([]string{"TMA_TMUX_BIN=" + wrapper}, "ls")
	if code != 0 || !strings.Contains(out, a.Pane+"\tclaude\tidle") {
		t.Fatalf("tma ls: %d %s\n%s", code, errs, out)
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "list-panes"); n != 1 {
		t.Errorf("tma ls listed %d times, want 1: %q", n, b)
	}
	os.Remove(log)
	cmd := exec.Command(filepath.Join(binDir, "tma-scan"), "-L", e.s.Name)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "TMA_TMUX_BIN="+wrapper)
	scan, err := cmd.Output()
	if err != nil || !strings.Contains(string(scan), `"pane":"`+a.Pane+`"`) {
		t.Fatalf("tma-scan: %v\n%s", err, scan)
	}
	b, _ = os.ReadFile(log)
	if n := strings.Count(string(b), "list-panes"); n != 1 {
		t.Errorf("tma-scan listed %d times, want 1: %q", n, b)
	}
}

// tma-hook starts its write client from an init function
// (lib/tmux/prebatch) and the hook's write takes it over: an event on a
// registered pane through a counting binary spawns tmux once and stamps
// the claim.
func TestPrestartedBatchIsTheHooksOnlySpawn(t *testing.T) {
	wrapper, log := countingTmux(t)
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	hook := func(event string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", event)
		cmd.Env = append(e.hookEnv(a.Pane), "TMA_TMUX_BIN="+wrapper)
		cmd.Stdin = strings.NewReader(`{"session_id":"s-prebatch","hook_event_name":"` + event + `"}`)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tma-hook %s: %v\n%s", event, err, out)
		}
	}
	hook("SessionStart")
	hook("Stop")
	os.Remove(log)
	hook("UserPromptSubmit")
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "\n"); n != 1 || !strings.Contains(string(b), "source-file -") {
		t.Errorf("the hook spawned %d times, want one source-file -: %q", n, b)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("@agent_state after UserPromptSubmit = %q, want working", got)
	}
}

// countingTmux is a stand-in for the test's tmux that appends each call's
// words, a line per call, to log and runs the real one.
func countingTmux(t *testing.T) (wrapper, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	wrapper = filepath.Join(dir, "tmux-wrapper")
	real, err := exec.LookPath(testkit.TmuxBin())
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper, log
}
