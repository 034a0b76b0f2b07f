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
// no-op in push mode): three hook pushes on a working pane, one document
// each in both streams.
func TestChangesOnlyIsANoOpInPushMode(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	e.ensure()
	_, plain, plainErr := e.startIn(e.run, "subscribe", "--json", "--interval", "60s")
	_, only, onlyErr := e.startIn(e.run, "subscribe", "--json", "--changes-only", "--interval", "60s")
	if drain(plain, 3*time.Second) != 1 || drain(only, time.Second) != 1 {
		t.Fatalf("the entry snapshots (stderr %s %s)", plainErr, onlyErr)
	}
	for i := 0; i < 3; i++ {
		e.fire(a.Pane, "claude", "PreToolUse", `{`+sess+`,"tool_name":"Bash"}`)
		time.Sleep(800 * time.Millisecond)
	}
	np, no := drain(plain, 2*time.Second), drain(only, 100*time.Millisecond)
	if np != 3 || no != np {
		t.Fatalf("after 3 hook pushes: %d documents without --changes-only, %d with (want 3 and 3)\n%s", np, no, strings.TrimSpace(plainErr.String()+onlyErr.String()))
	}
}
