package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
)

// PoolIdle is how long a Pool keeps a connection nobody asks on: long
// enough that a shell loop or a status line asking every few seconds or
// minutes pays one ssh dial, short enough that a far host is not left
// with a serve process (and an sshd session) for a remote asked about
// once.
const PoolIdle = 5 * time.Minute

// Pool holds serve connections for a process that answers one-shot asks
// on others' behalf (the daemon, for ls --host and status --host). A
// remote's connection is dialled on the first ask for it and kept; each
// ask is one snapshot request over it, so the rows are the host's rows at
// that moment, never an earlier answer. A held connection found ended is
// dialled again at once within the same ask; one that fails otherwise is
// dropped and the next ask dials. Either way an ask costs at most the
// remote's timeout and fails with the error a one-shot Snapshot would
// give, so a surface says the same line whichever path it took.
type Pool struct {
	version string
	idle    time.Duration
	ctx     context.Context
	cancel  context.CancelFunc

	mu    sync.Mutex
	held  map[string]*pooled
	dials map[string]int
}

// pooled is one remote's slot; sem (one token) guards conn and last, so
// two asks for a remote take turns on its one connection.
type pooled struct {
	sem   chan struct{}
	r     config.Remote
	conn  *Conn
	last  time.Time
	timer *time.Timer
}

// NewPool is an empty pool whose connections close after idle without an
// ask (PoolIdle in the daemon).
func NewPool(version string, idle time.Duration) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{version: version, idle: idle, ctx: ctx, cancel: cancel, held: map[string]*pooled{}, dials: map[string]int{}}
}

// Snapshot asks r for one snapshot over its held connection, dialling one
// when there is none; all of it within r's timeout from now.
func (p *Pool) Snapshot(ctx context.Context, r config.Remote) Result {
	res := Result{Name: r.Name}
	timeout := r.Timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()

	p.mu.Lock()
	if p.ctx.Err() != nil {
		p.mu.Unlock()
		res.Err = errors.New("the pool is closed")
		return res
	}
	e := p.held[r.Name]
	if e == nil {
		e = &pooled{sem: make(chan struct{}, 1)}
		p.held[r.Name] = e
	}
	p.mu.Unlock()

	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		res.Err = same(ctx, ctx.Err(), timeout)
		return res
	}
	defer func() { <-e.sem }()

	if e.conn != nil && !sameEntry(e.r, r) {
		// The entry changed (a reload): its old connection is not this one.
		e.conn.Kill()
		e.conn = nil
	}
	e.r = r
	for fresh := false; ; {
		if e.conn == nil {
			p.mu.Lock()
			p.dials[r.Name]++
			p.mu.Unlock()
			c, err := Dial(ctx, r, p.version)
			if err != nil {
				res.Err = same(ctx, err, timeout)
				return res
			}
			e.conn, fresh = c, true
		}
		snap, err := e.conn.Snapshot(ctx)
		if err == nil {
			res.Rows, res.Panes = snap.Rows, snap.Panes
			if res.Rows == nil {
				res.Rows = []record.AgentRow{}
			}
			e.last = time.Now()
			p.arm(r.Name, e)
			return res
		}
		e.conn.Kill()
		e.conn = nil
		// A held connection that ended (the host's sshd or serve went
		// away since the last ask) is dialled once more; anything else,
		// or a fresh dial failing, is this ask's answer.
		if fresh || !errors.Is(err, errEnded) || ctx.Err() != nil {
			res.Err = same(ctx, err, timeout)
			return res
		}
	}
}

// arm (re)starts e's idle timer; called holding e's token.
func (p *Pool) arm(name string, e *pooled) {
	if e.timer != nil {
		e.timer.Reset(p.idle)
		return
	}
	e.timer = time.AfterFunc(p.idle, func() { p.expire(name, e) })
}

// expire closes e's connection when it has been idle for the pool's idle
// time; an ask in flight holds the token and re-arms the timer itself.
func (p *Pool) expire(name string, e *pooled) {
	select {
	case e.sem <- struct{}{}:
	default:
		return
	}
	defer func() { <-e.sem }()
	if e.conn != nil && time.Since(e.last) >= p.idle {
		e.conn.Kill()
		e.conn = nil
	}
}

// Held is whether the pool holds a connection to name now.
func (p *Pool) Held(name string) bool {
	p.mu.Lock()
	e := p.held[name]
	p.mu.Unlock()
	if e == nil {
		return false
	}
	e.sem <- struct{}{}
	defer func() { <-e.sem }()
	return e.conn != nil
}

// Dials is how many times the pool has dialled name.
func (p *Pool) Dials(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials[name]
}

// Close ends every held connection (their process groups killed); an ask
// in flight ends at once, and asks after it fail.
func (p *Pool) Close() {
	p.mu.Lock()
	p.cancel()
	es := make([]*pooled, 0, len(p.held))
	for _, e := range p.held {
		es = append(es, e)
	}
	p.mu.Unlock()
	for _, e := range es {
		e.sem <- struct{}{}
		if e.timer != nil {
			e.timer.Stop()
		}
		if e.conn != nil {
			e.conn.Kill()
			e.conn = nil
		}
		<-e.sem
	}
}

func sameEntry(a, b config.Remote) bool {
	return a.Name == b.Name && slices.Equal(a.Command, b.Command) && a.Timeout() == b.Timeout()
}

// same words err as a one-shot Snapshot would: the ask's deadline is the
// remote's timeout, and a stream that ended did so before a snapshot.
func same(ctx context.Context, err error, timeout time.Duration) error {
	var te *TimeoutError
	switch {
	case errors.As(err, &te):
		return &TimeoutError{timeout}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{timeout}
	case errors.Is(err, errEnded):
		return fmt.Errorf("%w before a snapshot", errEnded)
	}
	return err
}
