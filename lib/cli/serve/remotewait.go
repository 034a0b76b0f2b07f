package servecmd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/serve/grammar"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/view"
	"github.com/tmaproject/tma/lib/wait"
)

type remoteWaitCmd = grammar.RemoteWait

func remoteWait(e *common.Env, g *common.Globals, c *remoteWaitCmd) int {
	until, err := selector.ParseStates("--until <STATES>", c.Until)
	if err != nil {
		e.Errorf("%v", err)
		return wait.ExitUsage
	}
	sel, err := c.Flags.Compile()
	if err != nil {
		e.Errorf("%v", err)
		return wait.ExitUsage
	}
	timeout, err := wait.ParseTimeout(c.Timeout)
	if err != nil {
		e.Errorf("%v", err)
		return wait.ExitUsage
	}
	spec := wait.Spec{Until: until, Since: c.Since, Sel: sel, Agent: c.Flags.AgentName(), Count: c.Count}
	if err := spec.Choose(c.Pane, c.Any, c.All); err != nil {
		e.Errorf("%v", err)
		return wait.ExitUsage
	}
	cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		e.Errorf("%v", err)
		return wait.ExitFail
	}
	r := cfg.Remote(c.Host)
	if r == nil {
		e.Errorf("no [[remote]] is called %q", c.Host)
		return wait.ExitUsage
	}
	ctx := common.Background()
	if timeout > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	w := wait.New(spec)
	timedOut := func() int {
		fmt.Fprintf(e.Stderr, "tma: timed out after %s waiting for %s (exit 124)\n", human(timeout), w.States())
		return wait.ExitTimeout
	}
	conn, err := remote.Dial(ctx, *r, common.Version)
	if err != nil {
		if ctx.Err() != nil {
			return timedOut()
		}
		e.Errorf("remote %s: %v", c.Host, err)
		return wait.ExitFail
	}
	defer conn.Close()
	every := time.Duration(max(conn.IntervalMS, 100)) * time.Millisecond
	for {
		snap, err := conn.Snapshot(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return timedOut()
			}
			e.Errorf("remote %s: %v", c.Host, err)
			return wait.ExitFail
		}
		rows := make([]*record.Row, len(snap.Rows))
		for i, a := range snap.Rows {
			rows[i] = remote.Row(a)
		}
		d := w.Observe(rows, snap.Panes)
		if d.Note != "" {
			fmt.Fprintf(e.Stderr, "tma: note: %s\n", d.Note)
		}
		if d.Done {
			if d.Code != wait.ExitReached {
				fmt.Fprintf(e.Stderr, "tma: %s\n", d.Msg)
				return d.Code
			}
			return printRows(e, d, c.JSON)
		}
		select {
		case <-ctx.Done():
			return timedOut()
		case <-time.After(every):
		}
	}
}

func human(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

// printRows prints what tma wait prints for a reached target.
func printRows(e *common.Env, d wait.Decision, asJSON bool) int {
	if view.Reached(e.Stdout, d.Rows, d.Multi, asJSON) != nil {
		return wait.ExitFail
	}
	return wait.ExitReached
}
