package integration

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/arrival"
	"github.com/tmaproject/tma/lib/testkit"
)

// TestJumpNextLeavesAttentionWithHooks: with the attention-clear tmux hooks
// installed, `tma jump --next` across windows clears no mark, neither on the
// pane it arrives at nor on the one it leaves (issue 27 item 18: the
// session-window-changed hook cleared the arrival). A move of any other
// kind afterwards still clears as ever: the --next marks do not linger.
func TestJumpNextLeavesAttentionWithHooks(t *testing.T) {
	e := newEnv(t, "")
	if _, errs, code := e.tma("install-hooks", "claude", "--yes"); code != 0 {
		t.Fatalf("install-hooks: %s", errs)
	}
	if !strings.Contains(e.s.MustRun("show-hooks", "-g", "session-window-changed"), "clear-attention") {
		t.Fatal("the session-window-changed hook is not installed")
	}
	home := e.window("s", "sleep 600")
	sentinel := e.window("s", "sleep 600") // a plain pane the clear unmarks: proof it ran
	var started []*testkit.Agent
	var agents []string
	for i := 0; i < 3; i++ {
		a := e.s.StartAgent("claude", claudeWorking)
		started, agents = append(started, a), append(agents, a.Pane)
	}
	c := e.attach(home)
	c.waitPane(home, "attached")
	// The marks come from real transitions after the client's last input,
	// or the fold's input clear would take them (see TestJumpDirections).
	time.Sleep(1100 * time.Millisecond)
	for _, a := range started {
		a.Paint(claudeBlocked)
	}
	for _, p := range agents {
		e.expect(p, "blocked/permission attn")
	}
	flagged := func() []string {
		var out []string
		for _, p := range agents {
			if e.s.Option(p, "@agent_attention") == "1" {
				out = append(out, p)
			}
		}
		return out
	}
	for i, dest := range []string{agents[0], agents[1], agents[2], agents[0]} {
		e.s.MustRun("set-option", "-p", "-t", sentinel, arrival.NextMark, "x")
		e.mustTma("jump", "--next", "--client", c.name)
		c.waitPane(dest, "--next")
		e.s.WaitFor(func() bool {
			return e.s.Option(sentinel, arrival.NextMark) == "" || len(flagged()) < len(agents)
		}, "the hook's clear after the window change")
		if got := flagged(); len(got) != len(agents) {
			t.Fatalf("--next #%d to %s: flagged %v, want every agent %v", i+1, dest, got, agents)
		}
	}
	// Moves of any other kind clear: leaving the last --next destination
	// clears it; arriving at a pane --next passed through earlier clears
	// it too (its mark went when the client left it).
	win := func(p string) string { return strings.TrimSpace(e.s.MustRun("display", "-p", "-t", p, "#{window_id}")) }
	e.s.MustRun("select-window", "-t", win(home))
	e.s.WaitFor(func() bool { return e.s.Option(agents[0], "@agent_attention") == "" }, "leaving "+agents[0]+" clears it")
	e.s.MustRun("select-window", "-t", win(agents[1]))
	e.s.WaitFor(func() bool { return e.s.Option(agents[1], "@agent_attention") == "" }, "arriving at "+agents[1]+" clears it")
	if e.s.Option(agents[2], "@agent_attention") != "1" {
		t.Error("a pane the client only passed through by --next lost its mark")
	}
}

// TestBoundJumpNextKeepsAttention: a `tma jump --next` run from a key
// binding is a keystroke of the client it moves, and tmux records it as that
// client's activity; the next cycle must not take it for typing at the pane
// it arrived at (issue 27 item 18: the fold's input clear retired the
// arrival's mark one cycle after the jump). Typing there in a later second
// still clears.
func TestBoundJumpNextKeepsAttention(t *testing.T) {
	e := newEnv(t, "")
	home := e.window("s", "sleep 600")
	a := e.s.StartAgent("claude", claudeWorking)
	b := e.s.StartAgent("claude", claudeWorking)
	c := e.attach(home)
	c.waitPane(home, "attached")
	// The marks come from transitions in a later second than the client's
	// last input (attaching), or the input clear would rightly take them.
	time.Sleep(1100 * time.Millisecond)
	a.Paint(claudeBlocked)
	b.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	e.expect(b.Pane, "blocked/permission attn")
	// The keystroke must fall in a later second than the marks' since, so
	// that without the jump's mark it would read as input after them.
	time.Sleep(1100 * time.Millisecond)
	e.s.MustRun("bind-key", "n", "run-shell", filepath.Join(binDir, "tma")+" jump --next")
	c.keys("\x02n")
	c.waitPane(a.Pane, "prefix n")
	if e.s.Option(a.Pane, arrival.NextMark) == "" {
		t.Fatal("the bound --next set no mark on its arrival")
	}
	for i := 0; i < 2; i++ {
		if got := e.ls()[a.Pane]; got != "blocked/permission attn" {
			t.Fatalf("cycle %d after a bound --next: %s reads %q, want its attention kept", i+1, a.Pane, got)
		}
	}
	// Typing at the pane, a second later, is input at it.
	time.Sleep(1100 * time.Millisecond)
	c.keys("x")
	e.expect(a.Pane, "blocked/permission")
	if e.s.Option(b.Pane, "@agent_attention") != "1" {
		t.Error("a pane the client never visited lost its mark")
	}
}
