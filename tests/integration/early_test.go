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
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	wrapper := filepath.Join(dir, "tmux-wrapper")
	real, err := exec.LookPath(testkit.TmuxBin())
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
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
