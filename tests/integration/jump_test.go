package integration

import (
	"strings"
	"testing"
	"time"
)

func (e *env) trail(client string) string {
	out, _ := e.s.Run("show-options", "-gqv", "@tma_trail_"+strings.NewReplacer("/", "_", "-", "_", ".", "_").Replace(client))
	return strings.TrimSpace(out)
}

func (e *env) mustTma(args ...string) (string, string) {
	e.t.Helper()
	out, errs, code := e.tma(args...)
	if code != 0 {
		e.t.Fatalf("tma %v: exit %d: %s%s", args, code, out, errs)
	}
	return out, errs
}

// TestJumpDirections drives a real attached client through every direction:
// where it lands, the trail it leaves, the attention it clears.
func TestJumpDirections(t *testing.T) {
	e := newEnv(t, "")
	b1 := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	time.Sleep(1100 * time.Millisecond)
	b2 := e.s.StartAgent("claude", claudeBlocked)
	w := e.s.StartAgent("claude", claudeWorking)
	d := e.s.StartAgent("claude", claudeIdle)
	e.expect(d.Pane, "idle")
	e.s.MustRun("set-option", "-p", "-t", d.Pane, "@agent_attention", "1")
	rows := e.ls()
	if rows[b1.Pane] != "blocked/permission attn" || rows[b2.Pane] != "blocked/permission attn" || rows[d.Pane] != "idle attn" {
		t.Fatalf("fleet not as staged: %v", rows)
	}
	home := e.window("s", "sleep 600")
	c := e.attach(home)
	c.waitPane(home, "attached")

	// --blocked: the longest-blocked first, and its attention cleared.
	e.mustTma("jump", "--blocked", "--client", c.name)
	c.waitPane(b1.Pane, "--blocked")
	if got := e.s.Option(b1.Pane, "@agent_attention"); got != "" {
		t.Errorf("--blocked left the destination's attention: %q", got)
	}
	if got := e.trail(c.name); got != home {
		t.Errorf("trail after one jump = %q, want %q", got, home)
	}
	// Again: the other blocked agent (not the one we are on).
	e.mustTma("jump", "--blocked", "--client", c.name)
	c.waitPane(b2.Pane, "second --blocked")
	// --attention: blocked first (b1 is still blocked), then done.
	e.mustTma("jump", "--attention", "--client", c.name)
	c.waitPane(b1.Pane, "--attention")
	e.mustTma("jump", "--attention", "--client", c.name, "--state", "done")
	c.waitPane(d.Pane, "--attention --state done")
	if got := e.s.Option(d.Pane, "@agent_attention"); got != "" {
		t.Errorf("--attention left the done pane's attention: %q", got)
	}
	if got, want := e.trail(c.name), strings.Join([]string{home, b1.Pane, b2.Pane, b1.Pane}, " "); got != want {
		t.Errorf("trail = %q, want %q", got, want)
	}
	// --back pops one; --home goes to the bottom and empties the trail.
	e.mustTma("jump", "--back", "--client", c.name)
	c.waitPane(b1.Pane, "--back")
	e.mustTma("jump", "--home", "--client", c.name)
	c.waitPane(home, "--home")
	if got := e.trail(c.name); got != "" {
		t.Errorf("--home left a trail: %q", got)
	}
	_, errs := e.mustTma("jump", "--back", "--client", c.name)
	if !strings.Contains(errs, "the return trail is empty") {
		t.Errorf("--back on an empty trail: %q", errs)
	}
	// The selector scopes triage; nothing in scope is a note and exit 0.
	_, errs = e.mustTma("jump", "--attention", "--agent", "codex", "--client", c.name)
	if !strings.Contains(errs, "no agents waiting for you in scope") {
		t.Errorf("empty scope note: %q", errs)
	}
	c.waitPane(home, "no move on an empty scope")

	// --next cycles by position and leaves attention alone. The mark comes
	// from a real transition: one set by hand on a pane whose state is older
	// than the client's last input is retired by the fold (inputClear), which
	// made this flaky across a second boundary.
	w.Paint(claudeBlocked)
	e.expect(w.Pane, "blocked/permission attn")
	order := []string{b1.Pane, b2.Pane, w.Pane, d.Pane} // window order
	e.mustTma("jump", "--client", c.name)
	c.waitPane(order[0], "--next from a non-agent pane")
	for i := 1; i < len(order)+1; i++ {
		e.mustTma("jump", "--next", "--client", c.name)
		c.waitPane(order[i%len(order)], "--next")
	}
	if e.s.Option(w.Pane, "@agent_attention") != "1" {
		t.Error("--next cleared attention")
	}
	// The trail is capped at 8.
	for i := 0; i < 6; i++ {
		e.mustTma("jump", "--next", "--client", c.name)
	}
	if n := len(strings.Fields(e.trail(c.name))); n != 8 {
		t.Errorf("trail holds %d entries, want the cap 8: %q", n, e.trail(c.name))
	}

	// --pane on a plain pane still moves, with a note.
	_, errs = e.mustTma("jump", "--pane", home, "--client", c.name)
	c.waitPane(home, "--pane on a plain pane")
	if !strings.Contains(errs, "no agent in pane "+home) {
		t.Errorf("--pane note: %q", errs)
	}
	// An unexpanded #{client_name} resolves the client itself.
	e.mustTma("jump", "--pane", b2.Pane, "--client", "#{client_name}")
	c.waitPane(b2.Pane, "--client #{client_name}")
	if _, _, code := e.tma("jump", "--pane", "%999", "--client", c.name); code != 3 {
		t.Errorf("--pane on a missing pane: exit %d, want 3", code)
	}
	if _, _, code := e.tma("jump", "--blocked", "--back"); code != 2 {
		t.Errorf("two directions: exit %d, want 2", code)
	}
}

// TestJumpAcrossSessionsAndMenu moves a client into another session, then
// picks from the agent menu with a quick-select digit.
func TestJumpAcrossSessionsAndMenu(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.s.MustRun("new-session", "-d", "-s", "other", "sleep", "600")
	e.s.MustRun("move-window", "-s", a.Pane, "-t", "other:")
	home := e.window("s", "sleep 600")
	c := e.attach(home)
	e.mustTma("jump", "--blocked", "--client", c.name)
	c.waitPane(a.Pane, "cross-session --blocked")
	if out, _ := e.s.Run("display", "-p", "-c", c.name, "#{session_name}"); strings.TrimSpace(out) != "other" {
		t.Errorf("client session = %q, want other", out)
	}
	e.mustTma("jump", "--back", "--client", c.name)
	c.waitPane(home, "--back across sessions")

	e.mustTma("jump", "--menu", "--client", c.name)
	e.s.WaitFor(func() bool { return c.seen("tma agents") }, "the menu drawn")
	c.keys("1")
	c.waitPane(a.Pane, "menu entry 1")
}

// TestAttach covers --print, the terminal refusal and the inside-tmux form.
func TestAttach(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	out, _, code := e.tma("attach", "--pane", a.Pane, "--print")
	if code != 0 || !strings.Contains(out, "attach-session -t s") || !strings.Contains(out, "-L "+e.s.Name) {
		t.Errorf("--print: exit %d %q", code, out)
	}
	before := e.s.MustRun("display", "-p", "-t", "s:", "#{window_index}")
	_, errs, code := e.tma("attach", "--pane", a.Pane)
	if code != 2 || !strings.Contains(errs, "not a terminal") {
		t.Errorf("no terminal: exit %d %q", code, errs)
	}
	if after := e.s.MustRun("display", "-p", "-t", "s:", "#{window_index}"); after != before {
		t.Errorf("the refused attach moved the session's window: %s -> %s", before, after)
	}
	if _, _, code := e.tma("attach", "--pane", "%999", "--print"); code != 3 {
		t.Errorf("missing pane: exit %d, want 3", code)
	}
}
