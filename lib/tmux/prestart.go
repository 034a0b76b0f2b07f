package tmux

import (
	"context"
	"time"

	"github.com/tmaproject/tma/lib/tmux/listcall"
)

// PendingBatch is a `source-file -` process started before its lines are
// known: a hook starts it first thing, so the tmux client's own start-up
// (exec, connect, identify) runs beside the hook's, and the lines go to
// its stdin when the hook has planned them. tmux waits on the stdin of a
// source-file - without holding anything else up.
type PendingBatch struct {
	client *Client
	call   *call // spawned here, or the one prebatch started, taken over
	ctx    context.Context
	cancel context.CancelFunc
	done   bool
}

// StartBatch starts the process; the client's Timeout bounds it from now.
// Where prebatch started this very process while the program was still
// initializing, it takes that one over instead of spawning.
func (c *Client) StartBatch(ctx context.Context) *PendingBatch {
	ctx, cancel := c.bounded(ctx)
	p := &PendingBatch{client: c, cancel: cancel, ctx: ctx}
	bin := c.binary()
	if pre := listcall.TakeBatch(bin, c.Target.Args()); pre != nil {
		c.Spawns++
		p.call = &call{c: c, ctx: ctx, p: pre.Proc}
		return p
	}
	p.call = c.spawn(ctx, "", []string{"source-file", "-"}, true)
	return p
}

// Adopt makes p the process of c's next `source-file -` call when p was
// started for c's binary and server (a hook that resolved another one from
// its config leaves p to Abandon).
func (c *Client) Adopt(p *PendingBatch) {
	if p == nil || p.done || p.client.Bin != c.Bin || p.client.Target != c.Target {
		return
	}
	c.Spawns += p.client.Spawns
	p.client.Spawns = 0
	c.pre = p
}

func (p *PendingBatch) finish(stdin string) (string, string, error) {
	p.done = true
	defer p.cancel()
	return p.call.finish(stdin)
}

// AbandonWait bounds how long an unused pending batch is waited for.
const AbandonWait = 200 * time.Millisecond

// Abandon ends a pending batch nobody used: an empty stdin, which tmux
// runs as nothing, then a bounded wait so no client outlives its caller.
func (p *PendingBatch) Abandon() {
	if p == nil || p.done {
		return
	}
	p.done = true
	defer p.cancel()
	ctx, cancel := context.WithTimeout(p.ctx, AbandonWait)
	defer cancel()
	p.call.ctx = ctx
	_, _, _ = p.call.finish("")
}
