package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// doctorPane is doctor's block for one pane: its line and the continuation
// lines under it.
func doctorPane(out, pane string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "  "+pane+" "):
			in = true
		case in && !strings.HasPrefix(l, "       "):
			in = false
		}
		if in {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestDaemonDemotesSilentHooks: a claude pane registered through its hooks,
// whose hooks then go silent while it works (an agent restarted without the
// wiring, say): its idle claim holds against the working chrome on screen
// (claude's idle claims last hook_decay_secs), until demote_edges of the
// daemon's active->quiet edges find it unexplained. Then the screen
// decides: working, then the permission prompt reads blocked, and doctor
// says demoted:. The next hook event promotes the pane back.
func TestDaemonDemotesSilentHooks(t *testing.T) {
	e := newEnv(t, laneOff+"[daemon]\nquiet_ms = 300\ndemote_edges = 2\n")
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	if o := e.opts(a.Pane); o["@agent_state"] != "idle" || o["@agent_source"] != "hook" {
		t.Fatalf("registration: %v", o)
	}
	e.ensure()
	e.s.WaitFor(func() bool { return e.hello().Cycles >= 2 }, "the daemon's first cycles")
	if out, _, _ := e.tma("doctor"); strings.Contains(doctorPane(out, a.Pane), "demoted:") {
		t.Fatalf("doctor says demoted before any unexplained output:\n%s", out)
	}

	// The agent works with no hook firing: each paint is a burst of output
	// and, 300 ms later, an edge whose capture shows working chrome.
	var edges int
	for i := 1; ; i++ {
		a.Paint(strings.Replace(claudeWorking, "120 tokens", strconv.Itoa(100+i)+" tokens", 1))
		time.Sleep(900 * time.Millisecond)
		o := e.opts(a.Pane)
		if o["@tma_demoted"] != "" {
			edges = i
			if o["@agent_state"] != "working" || o["@agent_source"] != "capture" {
				t.Fatalf("demoted, yet the screen did not decide: %v", o)
			}
			break
		}
		if o["@agent_state"] != "idle" || o["@agent_source"] != "hook" {
			t.Fatalf("paint %d: the hook claim gave way before the demotion: %v", i, o)
		}
		if i == 10 {
			t.Fatalf("no demotion after 10 unexplained bursts: %v\nlog:\n%s", o, e.daemonLog())
		}
	}
	if edges < 2 {
		t.Fatalf("demoted after %d bursts, want demote_edges = 2 of them", edges)
	}

	a.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	if src := e.s.Option(a.Pane, "@agent_source"); src != "capture" {
		t.Fatalf("blocked from %q, want capture", src)
	}
	out, _, _ := e.tma("doctor")
	if !strings.Contains(doctorPane(out, a.Pane), "demoted:") {
		t.Fatalf("doctor has no demoted: line for %s:\n%s", a.Pane, out)
	}

	// The prompt answered and the turn over, a hook event after the
	// demotion: the hooks are alive, the claim outranks the screen again
	// and doctor drops the line.
	a.Paint(claudeIdle)
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@tma_demoted") == "" }, "the promotion")
	if o := e.opts(a.Pane); o["@agent_state"] != "idle" || o["@agent_source"] != "hook" {
		t.Fatalf("after the promotion: %v", o)
	}
	if out, _, _ := e.tma("doctor"); strings.Contains(doctorPane(out, a.Pane), "demoted:") {
		t.Fatalf("doctor still says demoted after the promotion:\n%s", out)
	}
}
