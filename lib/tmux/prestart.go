package tmux

import (
	"context"
	"io"
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
	call   *call
	pre    *listcall.Proc // the process prebatch started, taken over
	ctx    context.Context
	stdin  io.WriteCloser
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
		p.pre = pre
		return p
	}
	k := c.prepare(ctx, "", []string{"source-file", "-"})
	in, err := k.cmd.StdinPipe()
	if err != nil {
		k.err = err
	} else {
		p.stdin = in
		c.Spawns++
		k.err = k.cmd.Start()
	}
	p.call = k
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
	if p.pre != nil {
		out, errs, err := p.pre.Finish(p.ctx, stdin, KillWait)
		if err != nil {
			err = p.client.classify(p.ctx, err, errs)
		}
		return out, errs, err
	}
	if p.call.err == nil {
		// A client that is gone (no server) fails the write; its exit
		// status says why.
		_, _ = io.WriteString(p.stdin, stdin)
		_ = p.stdin.Close()
	}
	return p.call.wait()
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
	if p.pre != nil {
		ctx, cancel := context.WithTimeout(p.ctx, AbandonWait)
		defer cancel()
		_, _, _ = p.pre.Finish(ctx, "", 0)
		return
	}
	if p.call.err != nil {
		return
	}
	_ = p.stdin.Close()
	waited := make(chan struct{})
	go func() { _, _, _ = p.call.wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(AbandonWait):
		p.cancel()
		<-waited
	}
}
