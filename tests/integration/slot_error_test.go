package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A broker error on a slotted dispatch reads the same first time and on
// replay: fired-unknown both (D-127, D-129), the replay only cached.
func TestActSlotErrorReplaysAsReported(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	real := e.s.Bin
	if !filepath.IsAbs(real) {
		p, err := exec.LookPath(real)
		if err != nil {
			t.Fatal(err)
		}
		real = p
	}
	wrap := filepath.Join(t.TempDir(), "tmux")
	// tmux refuses every send-keys, in argv or in a source-file batch.
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = send-keys ] && { echo 'refused by the test' >&2; exit 1; }; done\n" +
		"case \" $* \" in *\" source-file \"*) in=$(cat); case $in in *send-keys*) echo 'refused by the test' >&2; exit 1 ;; esac\n" +
		"  printf '%s\\n' \"$in\" | exec '" + real + "' \"$@\" ;; esac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMA_TMUX_BIN", wrap)
	first, _, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s-err")
	if code != 1 || first.Outcome != "error" || first.reason() != "fired-unknown" || *first.Cached {
		t.Fatalf("first: exit %d %+v", code, first)
	}
	again, _, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s-err")
	if code != 1 || again.Outcome != "error" || again.reason() != first.reason() || !*again.Cached {
		t.Errorf("replay: exit %d %+v", code, again)
	}
}
