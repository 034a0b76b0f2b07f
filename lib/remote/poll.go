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

// The backoff a long-running surface waits before dialling a lost remote
// again, doubling to its cap (subscribe --host's, too).
const (
	BackoffFirst = time.Second
	BackoffCap   = 30 * time.Second
)

// State is what a long-running surface knows of one remote right now.
type State struct {
	Name string
	// Rows are the last snapshot's (host set to Name), nil while there is
	// none: before the first answer, and after a failure until a new dial
	// answers.
	Rows []record.AgentRow
	// AtMS is the host's clock at that snapshot.
	AtMS int64
	// Err is why there are no rows; nil while Pending or with rows.
	Err error
	// Pending is a remote whose first dial has not answered yet.
	Pending bool
	// Timeout is the remote's timeout, for the header that names it.
	Timeout time.Duration
}

// Poller holds one serve connection per remote for a surface that asks
// every second (the picker, watch): each is dialled once and asked for a
// snapshot at the surface's cadence (or the host's reconcile interval when
// slower), and a connection that fails is dialled again with backoff. Each
// remote has a goroutine of its own, so a hung one never delays another
// or the local rows; its State says why it has no rows.
type Poller struct {
	mu      sync.Mutex
	states  []State
	dials   []int
	changed chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// backoff is the first pause after a failure (tests shorten it).
	backoff time.Duration
	// asks carries card requests to each remote's goroutine, which asks
	// on the connection it holds: a card costs no new session.
	asks  []chan cardAsk
	names []string
}

type cardAsk struct {
	pane  string
	reply chan cardReply // buffered: the holder never waits on the asker
}

type cardReply struct {
	card *Card
	err  error
}

// Poll starts polling rs; every is the surface's refresh cadence.
func Poll(rs []config.Remote, version string, every time.Duration) *Poller {
	return poll(rs, version, every, BackoffFirst)
}

func poll(rs []config.Remote, version string, every, backoff time.Duration) *Poller {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Poller{changed: make(chan struct{}, 1), ctx: ctx, cancel: cancel, dials: make([]int, len(rs)), backoff: backoff}
	for i, r := range rs {
		p.states = append(p.states, State{Name: r.Name, Pending: true, Timeout: r.Timeout()})
		p.asks = append(p.asks, make(chan cardAsk))
		p.names = append(p.names, r.Name)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.run(i, r, version, every)
		}()
	}
	return p
}

func (p *Poller) run(i int, r config.Remote, version string, every time.Duration) {
	pause := p.backoff
	for {
		p.mu.Lock()
		p.dials[i]++
		p.mu.Unlock()
		conn, err := Dial(p.ctx, r, version)
		if err == nil {
			pause = p.backoff
			err = p.hold(i, r, conn, max(every, time.Duration(conn.IntervalMS)*time.Millisecond))
			conn.Kill()
		}
		if p.ctx.Err() != nil {
			return
		}
		p.set(i, State{Name: r.Name, Err: err, Timeout: r.Timeout()})
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, BackoffCap)
	}
}

// hold asks conn for a snapshot every interval until one fails, and
// answers card requests between them. A card the host refused (a pane with
// no agent) leaves the connection standing; any other failure ends it.
func (p *Poller) hold(i int, r config.Remote, conn *Conn, every time.Duration) error {
	for {
		snap, err := conn.Snapshot(p.ctx)
		if err != nil {
			return err
		}
		rows := snap.Rows
		if rows == nil {
			rows = []record.AgentRow{}
		}
		p.set(i, State{Name: r.Name, Rows: rows, AtMS: snap.AtMS, Timeout: r.Timeout()})
		next := time.NewTimer(every)
	wait:
		for {
			select {
			case <-p.ctx.Done():
				next.Stop()
				return p.ctx.Err()
			case <-next.C:
				break wait
			case a := <-p.asks[i]:
				c, err := conn.Card(p.ctx, a.pane)
				a.reply <- cardReply{c, err}
				if _, refused := err.(*RefusedError); err != nil && !refused {
					next.Stop()
					return err
				}
			}
		}
	}
}

// Card asks remote name what pane waits on, over the connection its
// goroutine holds; ctx bounds the wait (a remote that is down, or dialling,
// answers nothing until it is up).
func (p *Poller) Card(ctx context.Context, name, pane string) (*Card, error) {
	if p == nil {
		return nil, errors.New("no remotes")
	}
	i := slices.Index(p.names, name)
	if i < 0 {
		return nil, fmt.Errorf("no remote %q", name)
	}
	a := cardAsk{pane: pane, reply: make(chan cardReply, 1)}
	select {
	case p.asks[i] <- a:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s is not connected", name)
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
	select {
	case r := <-a.reply:
		return r.card, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *Poller) set(i int, st State) {
	p.mu.Lock()
	p.states[i] = st
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// States is every remote's state, in config order.
func (p *Poller) States() []State {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]State(nil), p.states...)
}

// Changed is signalled (without blocking: one pending signal at most)
// whenever a remote's state was set.
func (p *Poller) Changed() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.changed
}

// Dials is how many times remote i has been dialled: once while its
// connection holds.
func (p *Poller) Dials(i int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials[i]
}

// Settled waits until no remote is pending or d has passed, and returns
// the states: a one-frame surface (--print) shows what each remote said.
func (p *Poller) Settled(d time.Duration) []State {
	deadline := time.After(d)
	for {
		sts := p.States()
		pending := false
		for _, st := range sts {
			pending = pending || st.Pending
		}
		if !pending {
			return sts
		}
		select {
		case <-p.changed:
		case <-deadline:
			return sts
		}
	}
}

// Close ends every connection (their process groups killed) and waits
// for the goroutines.
func (p *Poller) Close() {
	if p == nil {
		return
	}
	p.cancel()
	p.wg.Wait()
}
