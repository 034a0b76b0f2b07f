package integration

import (
	"testing"
	"time"
)

// With the daemon running (the default firer), one blocked prompt is one
// notification, whether the screen showed it or a hook reported it, and a
// second hook for the same episode adds nothing.
func TestNotifyFromTheDaemon(t *testing.T) {
	e := newNotifyEnv(t, "")
	a := e.startPainted(claudeBlocked)
	e.ensure()
	ps := e.payloads(1, 10*time.Second)
	if len(ps) != 1 || ps[0]["pane"] != a.Pane || ps[0]["state"] != "blocked" {
		t.Fatalf("screen-first under the daemon: %v\nlog:\n%s", ps, e.daemonLog())
	}
	b := e.s.StartAgent("claude", claudeWorking)
	// The daemon's first sighting of b first: a hook that started before a
	// capture its commit lands after is older evidence than that screen,
	// and loses to it (the evidence order), which is not what this checks.
	e.s.WaitFor(func() bool { return e.s.Option(b.Pane, "@agent_state") == "working" }, "the daemon's first sighting of "+b.Pane)
	e.fire(b.Pane, "claude", "UserPromptSubmit", `{"session_id":"s-b","prompt":"hi"}`)
	e.fire(b.Pane, "claude", "PermissionRequest", `{"session_id":"s-b","tool_name":"Bash","tool_input":{"command":"x"}}`)
	ps = e.payloads(2, 10*time.Second)
	if len(ps) != 2 {
		t.Fatalf("hook-first under the daemon: %d fires\nlog:\n%s", len(ps), e.daemonLog())
	}
	e.fire(b.Pane, "claude", "PermissionRequest", `{"session_id":"s-b","tool_name":"Bash","tool_input":{"command":"x"}}`)
	time.Sleep(2 * time.Second)
	if got := e.payloads(3, 0); len(got) != 2 {
		t.Errorf("%d fires for two episodes", len(got))
	}
}
