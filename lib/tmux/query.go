package tmux

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// A follower's control clients are connections to the server it already
// holds open, and a command sent down one costs the server what the same
// command costs from a spawned client, without the client: tmux's start-up
// (≈2.5 ms of CPU at every tick, more than the list itself) and the fork.
// So the follower's list runs over one of them (Client.Control), and every
// other command still spawns.
//
// Control mode frames the output of each command this client sent between
// "%begin <time> <number> 1" and "%end|%error <time> <number> 1", one
// block per command of the line. Inside a block only the matching %end or
// %error ends it, so a pane title that prints "%output …" is content, not
// a push; a title cannot know the block's number, and a list whose panes
// do not add up to what its windows hold (a forged %end that cut the block)
// is refused and made again by a spawn.

// ctl is one control client.
type ctl struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	qmu    sync.Mutex    // one query at a time
	blocks chan block    // the reader's blocks for commands this client sent
	done   chan struct{} // closed when the client's output ends
}

type block struct {
	out    string
	failed bool // %error
}

// framer follows the blocks of one control client's output.
type framer struct {
	in, ours bool
	num      string
	buf      strings.Builder
}

// line takes one output line. It reports whether the line belonged to a
// block (then it is no notification), and returns the block of a command
// this client sent when the line ended one.
func (f *framer) line(l string) (*block, bool) {
	if !f.in {
		rest, ok := strings.CutPrefix(l, "%begin ")
		if !ok {
			return nil, false
		}
		w := strings.Fields(rest)
		if len(w) < 3 {
			return nil, false
		}
		f.in, f.num, f.ours = true, w[1], w[2] == "1"
		f.buf.Reset()
		return nil, true
	}
	for _, end := range []string{"%end ", "%error "} {
		if rest, ok := strings.CutPrefix(l, end); ok {
			if w := strings.Fields(rest); len(w) >= 2 && w[1] == f.num {
				f.in = false
				if !f.ours {
					return nil, true
				}
				return &block{out: f.buf.String(), failed: end == "%error "}, true
			}
		}
	}
	if f.ours {
		f.buf.WriteString(l)
		f.buf.WriteByte('\n')
	}
	return nil, true
}

// errNoControl: no control client can take the query; spawn instead.
var errNoControl = errors.New("no control client")

// query sends cmds as one command line down one of the control clients and
// returns each command's output, in order. A command that failed, or a
// client that ended, is errNoControl: the caller spawns instead and gets
// tmux's own error. A query not answered within the client's timeout kills
// that control client (its late blocks would answer the next query) and is
// ErrTimeout, as a spawned client's would be.
func (p *Pusher) query(ctx context.Context, cmds [][]string) ([]string, error) {
	p.mu.Lock()
	var c *ctl
	for _, x := range p.procs {
		c = x
		break
	}
	p.mu.Unlock()
	if c == nil {
		return nil, errNoControl
	}
	c.qmu.Lock()
	defer c.qmu.Unlock()
	for len(c.blocks) > 0 {
		<-c.blocks
	}
	var line strings.Builder
	for i, args := range cmds {
		if i > 0 {
			line.WriteString(" ; ")
		}
		for j, a := range args {
			if j > 0 {
				line.WriteByte(' ')
			}
			line.WriteString(Quote(a))
		}
	}
	line.WriteByte('\n')
	if _, err := io.WriteString(c.stdin, line.String()); err != nil {
		return nil, errNoControl
	}
	to := p.client.Timeout
	if to <= 0 {
		to = DefaultTimeout
	}
	timer := time.NewTimer(to)
	defer timer.Stop()
	outs := make([]string, 0, len(cmds))
	failed := false
	for len(outs) < len(cmds) {
		select {
		case b := <-c.blocks:
			failed = failed || b.failed
			outs = append(outs, b.out)
		case <-c.done:
			return nil, errNoControl
		case <-ctx.Done():
			_ = c.cmd.Process.Kill()
			return nil, ctx.Err()
		case <-timer.C:
			_ = c.cmd.Process.Kill()
			return nil, &Error{Kind: ErrTimeout, Target: p.client.Target, Bin: p.client.Bin}
		}
	}
	if failed {
		return nil, errNoControl
	}
	return outs, nil
}
