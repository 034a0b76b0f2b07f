package integration

import (
	"testing"
	"time"
)

// A prompt that goes with no work after it (issue 27, item 5): blocked,
// then the idle screen (Esc, or a reject, fires no event), is not a turn's
// end. The blocked fire happens; no done follows, and the pane reads plain
// idle, its attention mark gone with the block.
func TestBlockedToIdleIsNotDone(t *testing.T) {
	e := newNotifyEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"x"}}`)
	a.Paint(claudeBlocked) // the dialog the hook announced
	e.cycleNotify()
	if ps := e.payloads(1, 5*time.Second); len(ps) != 1 || ps[0]["state"] != "blocked" {
		t.Fatalf("the blocked fire: %v", ps)
	}
	// Esc: the dialog goes and the idle prompt is back, with no event. The
	// claim is released after its grace and a confirming cycle.
	a.Paint(claudeIdle)
	deadline := time.Now().Add(15 * time.Second)
	for e.s.Option(a.Pane, "@agent_state") != "idle" {
		if time.Now().After(deadline) {
			t.Fatalf("the blocked claim was never released: %v", e.opts(a.Pane))
		}
		time.Sleep(200 * time.Millisecond)
		e.cycleNotify()
	}
	e.cycleNotify()
	if got := e.s.Option(a.Pane, "@agent_attention"); got != "" {
		t.Errorf("blocked -> idle with no work kept the mark: @agent_attention %q", got)
	}
	if got := e.ls()[a.Pane]; got != "idle" {
		t.Errorf("ls: %q, want plain idle", got)
	}
	if ps := e.payloads(2, time.Second); len(ps) != 1 {
		t.Errorf("%d fires, want only the blocked one: %v", len(ps), ps)
	}
}

// The same through an agent's hooks (issue 27 item 5, its hook half): Codex
// reports a prompt rejected with Esc as Interrupt, an idle claim that is no
// turn's end. The blocked fire happens, no done follows, and the pane reads
// plain idle; a turn that did work still ends done.
func TestRejectedPromptByHookIsNotDone(t *testing.T) {
	e := newNotifyEnv(t, "")
	a := e.s.StartAgent("codex", claudeIdle)
	const s = `"session_id":"thr-r"`
	e.fire(a.Pane, "codex", "SessionStart", `{`+s+`}`)
	e.fire(a.Pane, "codex", "UserPromptSubmit", `{`+s+`}`)
	e.fire(a.Pane, "codex", "PermissionRequest", `{`+s+`,"tool_name":"Bash"}`)
	if got := e.s.Option(a.Pane, "@agent_attention"); got != "1" {
		t.Fatalf("the blocked claim raised no mark: %v", e.opts(a.Pane))
	}
	e.cycleNotify()
	if ps := e.payloads(1, 5*time.Second); len(ps) != 1 || ps[0]["state"] != "blocked" {
		t.Fatalf("the blocked fire: %v", ps)
	}
	e.fire(a.Pane, "codex", "Interrupt", `{`+s+`}`)
	if got := e.s.Option(a.Pane, "@agent_attention"); got != "" {
		t.Errorf("blocked -> Interrupt kept the block's mark: %v", e.opts(a.Pane))
	}
	e.cycleNotify()
	if got := e.ls()[a.Pane]; got != "idle" {
		t.Errorf("ls after the rejection: %q, want plain idle", got)
	}
	if ps := e.payloads(2, time.Second); len(ps) != 1 {
		t.Errorf("%d fires, want only the blocked one: %v", len(ps), ps)
	}
	// A turn that works, then ends, is done as ever.
	e.fire(a.Pane, "codex", "UserPromptSubmit", `{`+s+`}`)
	e.fire(a.Pane, "codex", "Stop", `{`+s+`}`)
	if got := e.s.Option(a.Pane, "@agent_attention"); got != "1" {
		t.Errorf("a worked turn's end raised no mark: %v", e.opts(a.Pane))
	}
}
