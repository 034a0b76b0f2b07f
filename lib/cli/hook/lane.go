package hookcmd

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/tmux"
)

// serverKey names the tmux server in the lane's file names: the same hook
// wiring resolves the same server the same way on every event of a pane.
func serverKey(c *tmux.Client) string {
	t := c.Target
	if t.SocketPath != "" {
		return "S:" + t.SocketPath
	}
	return "L:" + t.SocketName
}

// holdRequest is the reply lane after the stamp: write the request's
// record, then hold until a verdict (print claude's decision object), the
// pane's next event (it removes the record), or hold_ms (delete the
// record, print nothing). Every failure degrades to printing nothing: the
// prompt is claude's own, answered on the keyboard as ever. No tmux call.
func holdRequest(e *common.Env, tc *tmux.Client, ev hook.Event, pane string, holdMS int, say func(string, ...any)) {
	defer func() {
		if p := recover(); p != nil {
			say("reply lane: %v", p) // never break the agent over the lane
		}
	}()
	dir := lane.Dir(e.Getenv)
	if err := lane.Ensure(dir); err != nil {
		say("reply lane: %v", err)
		return
	}
	now := time.Now()
	r := lane.Request{V: 1, ID: ev.Request, Agent: ev.Agent.Name, Server: serverKey(tc), Pane: pane,
		Session: ev.Payload.Session, Tool: ev.Payload.Tool, Call: ev.Payload.Call, Summary: ev.Payload.Summary,
		PID: os.Getpid(), CreatedMS: now.UnixMilli(), ExpiresMS: now.UnixMilli() + int64(holdMS)}
	path, err := lane.Write(dir, r)
	if err != nil {
		say("reply lane: %v", err)
		return
	}
	say("reply lane: holding request %s on %s for %d ms", r.ID, pane, holdMS)
	v, end := lane.Hold(dir, r.ID, path, now.Add(time.Duration(holdMS)*time.Millisecond), lane.Poll)
	say("reply lane: request %s %s", r.ID, end)
	switch end {
	case lane.Replied:
		fmt.Fprintf(e.Stdout, "%s\n", lane.Decision(v.Behavior))
	case lane.Expired:
		// Nobody holds the request any more: take its id off the pane,
		// unless a newer prompt's id replaced it meanwhile.
		l := "if-shell -F -t " + pane + " " + tmux.Quote("#{==:#{"+lane.Option+"},"+r.ID+"}") + " " + tmux.Quote("set -pu -t "+pane+" "+lane.Option)
		if _, err := tc.Exec(context.Background(), []string{l}); err != nil {
			say("reply lane: %v", err)
		}
	}
}
