package waitcmd

import (
	"bufio"
	"context"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/fleet"
)

// Push mode: with a daemon running, the stream subscribes to its edge
// pushes and, on each, runs a cycle of its own (lib/fleet, the same scan,
// fold and stamp the pipeline runs), so a transition is seen at once
// rather than at the next --interval tick, and every document is still
// built from this process's own cycle, never from the socket. The
// pipeline's cycles keep coming and become the belt. When the daemon goes
// (or never answers the subscribe verb) the stream is back on the poll,
// silently, and looks for a daemon again every ReprobeEvery.
const (
	// PushCoalesce: wakes within this window make one cycle.
	PushCoalesce = 100 * time.Millisecond
	// ReprobeEvery is how often a polling stream looks for a daemon.
	ReprobeEvery = 2 * time.Second
	// SubscribeAsk bounds the subscribe request.
	SubscribeAsk = 250 * time.Millisecond
)

// subscription is an open subscribe connection: wakes is signalled per
// edge (coalescing), gone closes when the connection ends.
type subscription struct {
	conn  *daemon.Conn
	wakes chan struct{}
	gone  chan struct{}
}

func subscribeTo(p daemon.Paths, pol daemon.Policy) *subscription {
	rep, c, err := daemon.Call(p.Socket, daemon.Request{Verb: daemon.VerbSubscribe}, SubscribeAsk)
	ver := ""
	if rep != nil {
		ver = rep.Version
	}
	daemon.AfterAsk(p, ver, err, pol)
	if err != nil {
		return nil
	}
	c.SetDeadline(time.Time{})
	s := &subscription{conn: c, wakes: make(chan struct{}, 1), gone: make(chan struct{})}
	go func() {
		defer close(s.gone)
		r := bufio.NewReader(c.Rest())
		for {
			if _, err := r.ReadBytes('\n'); err != nil {
				return
			}
			select {
			case s.wakes <- struct{}{}:
			default:
			}
		}
	}()
	return s
}

// feed is the pipeline's cycles, in push mode merged with this process's
// own cycles on the daemon's wakes. A cycle older than one already passed
// on (a belt cycle begun before a wake's) is dropped, so a stream never
// steps back in time.
func feed(e *common.Env, g *common.Globals) <-chan cycleMsg {
	pipe := read(e)
	out := make(chan cycleMsg, 4)
	go func() {
		defer close(out)
		var sub *subscription
		var paths *daemon.Paths
		var reprobe <-chan time.Time
		var own *ownCycle
		var last int64
		first := true
		try := func() {
			// [daemon] autostart starts a daemon on the stream's first look
			// only; restart_on_upgrade acts on every subscription.
			pol := daemon.Policy{}
			if cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup)); err == nil {
				pol = daemon.PolicyOf(cfg.Daemon.Autostart && first, cfg.Daemon.RestartOnUpgrade, common.Version, g.Config, g.ManifestDir)
			}
			first = false
			if sub = subscribeTo(*paths, pol); sub == nil {
				reprobe = time.After(ReprobeEvery)
			}
		}
		for {
			var wakes <-chan struct{}
			var gone <-chan struct{}
			if sub != nil {
				wakes, gone = sub.wakes, sub.gone
			}
			select {
			case m, ok := <-pipe:
				if !ok {
					return
				}
				if m.err != nil {
					out <- m
					continue
				}
				if m.cyc.NowMS <= last {
					continue
				}
				last = m.cyc.NowMS
				if paths == nil && m.cyc.Server != "" {
					p := daemon.ForEnv(m.cyc.Server, e.Getenv)
					paths = &p
					try()
				}
				m.push = sub != nil
				out <- m
			case <-wakes:
				time.Sleep(PushCoalesce)
				select {
				case <-sub.wakes:
				default:
				}
				if own == nil {
					own = newOwnCycle(e, g)
				}
				m, ok := own.run()
				if !ok || m.cyc.NowMS <= last {
					continue
				}
				last = m.cyc.NowMS
				m.push, m.own = true, true
				out <- m
			case <-gone:
				sub.conn.Close()
				sub = nil
				reprobe = time.After(ReprobeEvery)
			case <-reprobe:
				reprobe = nil
				try()
			}
		}
	}()
	return out
}

// ownCycle runs this process's cycles in push mode, on the config and
// manifests the globals name (reloaded when they change).
type ownCycle struct {
	e  *common.Env
	g  *common.Globals
	rl *common.Reloader
}

func newOwnCycle(e *common.Env, g *common.Globals) *ownCycle {
	return &ownCycle{e: e, g: g}
}

// run is one cycle; false when it could not run (the pipeline reports a
// server that is gone; a wake is only a hint).
func (o *ownCycle) run() (cycleMsg, bool) {
	if o.rl == nil {
		rl, err := o.g.NewReloader(common.Quiet(o.e))
		if err != nil {
			return cycleMsg{}, false
		}
		o.rl = rl
	}
	l := o.rl.Get()
	tc := o.g.Tmux(o.e, l.Config)
	f, err := fleet.Run(context.Background(), tc, fleet.Options{Manifests: l.Manifests, Tuning: l.Tuning(), Host: common.Host(),
		Now: func() int64 { return time.Now().UnixMilli() }})
	if err != nil {
		return cycleMsg{}, false
	}
	return cycleMsg{cyc: f.Cycle, rows: f.Rows}, true
}
