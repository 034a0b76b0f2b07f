package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// TestPickerGivenAnotherServer runs the picker from a pane of one server
// on another (-L), with the tmux it runs named only by [tmux] bin in the
// --config it was given and a tripwire `tmux` first on $PATH (issue 27
// item 24: the picker showed 0/0 where ls listed the agent). The agent's
// pane is %1 on its server and the picker's own pane is %1 on the other:
// $TMUX_PANE names a pane of the server $TMUX names, so the agent is not
// left out as the picker's own pane; and fzf's preview, a child of the
// picker, captures the agent's screen through the same tmux, never the
// one $PATH finds.
func TestPickerGivenAnotherServer(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	a := e.s.StartAgent("claude", claudeBlocked)
	if a.Pane != "%1" {
		t.Fatalf("the agent's pane is %s, the test needs %%1", a.Pane)
	}
	real := e.s.Bin
	if !filepath.IsAbs(real) {
		p, err := exec.LookPath(real)
		if err != nil {
			t.Fatal(err)
		}
		real = p
	}
	dir := t.TempDir()
	trip := filepath.Join(dir, "trip")
	if err := os.MkdirAll(trip, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "tripped")
	if err := os.WriteFile(filepath.Join(trip, "tmux"), []byte("#!/bin/sh\necho \"$*\" >>'"+log+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[tmux]\nbin = \""+real+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := testkit.NewServer(t)
	cmd := "export PATH='" + trip + ":" + binDir + "':\"$PATH\" HOME='" + e.home + "' TMA_TMUX_BIN= " +
		"FZF_DEFAULT_OPTS='--height=40% --layout=default --multi --exit-0'; " +
		"tma -L " + e.s.Name + " --config '" + cfg + "'; echo PICKER-EXIT $?; sleep 600"
	picker := strings.TrimSpace(other.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", cmd))
	if picker != "%1" {
		t.Fatalf("the picker's pane is %s, the test needs %%1", picker)
	}
	screen := func() string { out, _ := other.Run("capture-pane", "-p", "-t", picker); return out }
	var got string
	other.WaitFor(func() bool {
		got = screen()
		return strings.Contains(got, "claude") && strings.Contains(got, "Do you want to proceed")
	}, "the agent's row and its preview in the picker")
	if b, _ := os.ReadFile(log); len(b) > 0 {
		t.Errorf("a child of the picker ran the tmux on $PATH: %s\nscreen:\n%s", b, got)
	}
	other.MustRun("send-keys", "-t", picker, "Escape")
	other.WaitFor(func() bool { return strings.Contains(screen(), "PICKER-EXIT 0") }, "the picker closed")
}
