package integration

import (
	"strings"
	"testing"
)

// TestDebugStamp: `tma debug stamp`, the internal verb the manual names
// (issue 27 item 19: it did not exist), runs one cycle's commit and prints
// the tmux lines it sends, one per line, and no records; --dry-run prints
// them and sends nothing; no server is the pipeline's error, said once,
// exit 1.
func TestDebugStamp(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	out, errs, code := e.tma("debug", "stamp", "--dry-run")
	if code != 0 || !strings.Contains(out, "if-shell -F -t "+a.Pane+" ") || !strings.Contains(out, "@agent_state '\\''idle'\\''") {
		t.Fatalf("debug stamp --dry-run: exit %d\n%s%s", code, out, errs)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "" {
		t.Fatalf("--dry-run wrote @agent_state %q", got)
	}
	out, errs, code = e.tma("debug", "stamp")
	if code != 0 || !strings.Contains(out, "if-shell -F -t "+a.Pane+" ") || strings.Contains(out, `"kind"`) {
		t.Fatalf("debug stamp: exit %d\n%s%s", code, out, errs)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "idle" {
		t.Fatalf("debug stamp did not commit: @agent_state %q", got)
	}
	e.s.MustRun("kill-server")
	out, errs, code = e.tma("debug", "stamp")
	if code != 1 || out != "" || strings.Count(errs, "error:") != 1 || !strings.Contains(errs, "no tmux server") {
		t.Errorf("debug stamp with no server: exit %d %q %q", code, out, errs)
	}
}
