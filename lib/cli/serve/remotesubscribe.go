package servecmd

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/serve/grammar"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/stream"
	"github.com/tmaproject/tma/lib/view"
	"github.com/tmaproject/tma/lib/wait"
)

type remoteSubscribeCmd = grammar.RemoteSubscribe

// backoff is how long a lost connection waits before each new dial,
// doubling to its cap.
const (
	backoffFirst = time.Second
	backoffCap   = 30 * time.Second
)

func remoteSubscribe(e *common.Env, g *common.Globals, c *remoteSubscribeCmd) int {
	if !c.JSON {
		e.Errorf("subscribe needs --json (one JSON document per line is its only output)")
		return wait.ExitUsage
	}
	sel, err := c.Flags.Compile()
	if err != nil {
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
	lifeline.DieWithReader(e.Stdout)
	ctx := common.Background()
	var d stream.Differ
	pause := backoffFirst
	for {
		conn, err := remote.Dial(ctx, *r, common.Version)
		if err == nil {
			pause = backoffFirst
			err = streamConn(e, conn, sel, c, &d)
			conn.Close()
			if err == errWrite {
				return 1
			}
		}
		// The gap while it is down is not recoverable, as for a local
		// stream: the first cycle after the new dial is a fresh baseline
		// for --events.
		fmt.Fprintf(e.Stderr, "tma: warning: remote %s: %v; dialling again in %s\n", c.Host, err, pause)
		d = stream.Differ{}
		time.Sleep(pause)
		pause = min(2*pause, backoffCap)
	}
}

var errWrite = fmt.Errorf("stdout is gone")

func streamConn(e *common.Env, conn *remote.Conn, sel *selector.Selector, c *remoteSubscribeCmd, d *stream.Differ) error {
	every := time.Duration(max(conn.IntervalMS, 100)) * time.Millisecond
	for {
		snap, err := conn.Snapshot(common.Background())
		if err != nil {
			return err
		}
		var rows []*record.Row
		for _, a := range snap.Rows {
			if row := remote.Row(a); sel.Match(row) {
				rows = append(rows, row)
			}
		}
		view.SortLs(rows)
		if c.Events {
			for _, ev := range d.Events(rows, snap.AtMS) {
				b, _ := json.Marshal(ev)
				if _, err := fmt.Fprintf(e.Stdout, "%s\n", b); err != nil {
					return errWrite
				}
			}
		} else if doc := d.Snapshot(rows, c.ChangesOnly); doc != nil {
			if _, err := fmt.Fprintf(e.Stdout, "%s\n", doc); err != nil {
				return errWrite
			}
		}
		time.Sleep(every)
	}
}
