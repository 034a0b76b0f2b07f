package integration

import (
	"strings"
	"testing"
	"time"
)

// drain counts the lines a stream prints within d.
func drain(lines <-chan string, d time.Duration) int {
	n := 0
	deadline := time.After(d)
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return n
			}
			n++
		case <-deadline:
			return n
		}
	}
}

// TestChangesOnlyIsANoOpInPushMode: riding a daemon, a subscribe prints
// the same documents with --changes-only as without (the manual: a silent
// no-op in push mode): the entry snapshot, then one document per hook push
// on a working pane, in both streams alike.
//
// It waits for states, not for times: each stream's entry snapshot is
// awaited (a loaded machine starts a pipeline in seconds), and the fleet
// is settled (the daemon has stamped the pane working) before either
// starts, so no commit of the daemon's own lands between them.
func TestChangesOnlyIsANoOpInPushMode(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	e.ensure()
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_state") == "working" }, "the daemon's working stamp")
	_, plain, plainErr := e.startIn(e.run, "subscribe", "--json", "--interval", "60s")
	_, only, onlyErr := e.startIn(e.run, "subscribe", "--json", "--changes-only", "--interval", "60s")
	for _, c := range []struct {
		name  string
		lines <-chan string
	}{{"plain", plain}, {"--changes-only", only}} {
		select {
		case <-c.lines:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no entry snapshot in 20 s (stderr %s %s)", c.name, plainErr, onlyErr)
		}
	}
	// Anything the entry raced (a commit in flight) reaches both streams.
	p0, o0 := drain(plain, 1500*time.Millisecond), drain(only, 100*time.Millisecond)
	for i := 0; i < 3; i++ {
		e.fire(a.Pane, "claude", "PreToolUse", `{`+sess+`,"tool_name":"Bash"}`)
		time.Sleep(800 * time.Millisecond)
	}
	np, no := drain(plain, 3*time.Second), drain(only, 500*time.Millisecond)
	if p0 != o0 || np != no || np < 1 {
		t.Fatalf("documents after the entry: %d then %d without --changes-only, %d then %d with (want the same, and the hook pushes printed)\n%s",
			p0, np, o0, no, strings.TrimSpace(plainErr.String()+onlyErr.String()))
	}
	if np != 3 {
		t.Logf("3 hook pushes printed %d documents in each stream (pushes that land in one cycle print one)", np)
	}
}

// TestSubscribeKeepsACompletionAKeyRetired: with no daemon, a turn ends
// (claude's Stop hook: done) and a key is pressed in the client showing
// the pane before the stream's next cycle, which retires the mark as it
// reads the pane. The stream still prints the completion: working → done,
// then done → idle, never a bare working → idle.
func TestSubscribeKeepsACompletionAKeyRetired(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	e.expect(a.Pane, "working")
	win := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{window_index}"))
	c := e.attach("s:" + win)
	c.waitPane(a.Pane, "the client shows the agent")

	// The screen stays as it is (the idle claim holds against it), so
	// nothing prints in the pane and nothing wakes the stream before the
	// key: its next cycle is the poll, 8 s after its first, or the push
	// of the key's echo.
	_, events, errb := e.startIn(t.TempDir(), "subscribe", "--json", "--events", "--interval", "8s")
	// The stream's first (silent) cycle is over once its scan keeps a
	// control connection, which it opens after that cycle's result.
	e.s.WaitFor(func() bool { return e.controlClients() > 0 }, "the stream's first cycle")
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	if e.s.Option(a.Pane, "@agent_attention") != "1" {
		t.Fatal("the Stop raised no done")
	}
	time.Sleep(1100 * time.Millisecond) // client activity is whole seconds
	if ev := nextEvent(t, events, 10*time.Millisecond); ev != "" {
		t.Fatalf("a cycle ran between the Stop and the key (the race was not forced): %s", ev)
	}
	c.keys("x") // its echo is output: the cycle it wakes reads the mark and the key
	var got []string
	for len(got) < 2 {
		ev := nextEvent(t, events, 15*time.Second)
		if ev == "" {
			break
		}
		got = append(got, ev)
	}
	edge := func(ev, from, to string) bool {
		return strings.Contains(ev, `"from":"`+from+`"`) && strings.Contains(ev, `"to":"`+to+`"`)
	}
	if len(got) != 2 || !edge(got[0], "working", "done") || !edge(got[1], "done", "idle") {
		t.Fatalf("events %q, want working → done, then done → idle (stderr %s)", got, errb)
	}
	if e.s.Option(a.Pane, "@agent_attention") != "" {
		t.Error("the key did not retire the mark (the race was not forced)")
	}
}

// TestWaitKeepsACompletionAKeyRetired: item 14's race for tma wait --until
// done: a key typed in the client showing the pane between the Stop and the
// wait's next cycle retires the done in that very cycle; the wait still
// reached done and answers with it, where it waited on (2026-12-04 note).
func TestWaitKeepsACompletionAKeyRetired(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	e.expect(a.Pane, "working")
	win := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{window_index}"))
	c := e.attach("s:" + win)
	c.waitPane(a.Pane, "the client shows the agent")

	cmd, out, errb := e.start("wait", "--pane", a.Pane, "--until", "done", "--json", "--interval", "8s", "--timeout", "30")
	// Its first cycle (working: no match) is over once its scan keeps a
	// control connection, which it opens after that cycle's result.
	e.s.WaitFor(func() bool { return e.controlClients() > 0 }, "the wait's first cycle")
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	if e.s.Option(a.Pane, "@agent_attention") != "1" {
		t.Fatal("the Stop raised no done")
	}
	time.Sleep(1100 * time.Millisecond) // client activity is whole seconds
	c.keys("x")                         // its echo is output: the cycle it wakes reads the mark and the key
	code, so := finish(t, cmd, out, 40*time.Second)
	if code != 0 || !strings.Contains(so, `"pane":"`+a.Pane+`"`) || !strings.Contains(so, `"done":true`) {
		t.Fatalf("wait --until done: exit %d %q %s", code, so, errb)
	}
	if e.s.Option(a.Pane, "@agent_attention") != "" {
		t.Error("the key did not retire the mark (the race was not forced)")
	}
}
