package scancmd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon/daemonpath"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/tmux"
)

type cli struct {
	common.Globals
	Pane       string        `name:"pane" placeholder:"ID" help:"observe only this pane (%N)."`
	NoCapture  bool          `name:"no-capture" help:"observe without reading any screen (read-only callers)."`
	CaptureAll bool          `name:"capture-all" help:"read every agent screen, even where the stamp could be reused (debug explain)."`
	Follow     bool          `name:"follow" help:"keep going: a cycle every --interval, and early when tmux pushes a change (control mode)."`
	Interval   time.Duration `name:"interval" default:"1s" help:"the cycle cadence with --follow."`
	NoPush     bool          `name:"no-push" help:"with --follow, poll only: no control-mode clients (also [tmux] control_clients = false)."`
	// RidesDaemon is the dispatcher's, for tma wait and tma subscribe, whose
	// consumer takes a running daemon's pushes (push mode): its scan then
	// attaches no pushers of its own.
	RidesDaemon bool `name:"rides-daemon" hidden:"" help:"with --follow: attach no pushers while a daemon answers for the server (its consumer takes the daemon's pushes)."`
	Daemon      bool `name:"daemon" help:"with --follow, the daemon's scan: a reconciliation sweep every [daemon] sweep_secs, and each pane's active->quiet edge after quiet_ms."`
	Timing      bool `name:"debug-timing" help:"say on stderr what the cycle cost, phase by phase, and which panes were captured or capture-skipped."`
}

// Run is tma-scan's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-scan", stdin, stdout, stderr)
	early := common.EarlyList(e, args)
	defer early.Abandon()
	var c cli
	if _, code, ok := common.Parse(e, &c, "Observe every pane of a tmux server once and emit NDJSON records (cycle, pane…, end).", args); !ok {
		return code
	}
	lifeline.Bind()
	w := record.NewWriter(stdout)
	defer w.Flush()
	fail := func(msg string, code int) int {
		_ = w.Write(&record.Error{Tool: "tma-scan", Message: msg, Code: code})
		if f, ok := stdout.(interface{ Fd() uintptr }); ok && isatty.IsTerminal(f.Fd()) {
			e.Errorf("%s", msg)
		}
		return code
	}
	if c.Pane != "" && !tmux.ValidPaneID(c.Pane) {
		e.Errorf("invalid pane id %q (want %%N)", c.Pane)
		return common.ExitUsage
	}
	rl, err := c.NewReloader(e.Quieted()) // in a pipeline the fold says the load warnings
	if err != nil {
		return fail(err.Error(), common.ExitFail)
	}
	l := rl.Get()
	tc := c.Tmux(e, l.Config)
	opts := scan.Options{
		Manifests: l.Manifests, Tuning: l.Tuning(), Host: common.Host(),
		Now: func() int64 { return time.Now().UnixMilli() }, Pane: c.Pane, NoCapture: c.NoCapture, CaptureAll: c.CaptureAll,
		List: early, Getenv: e.Getenv,
	}
	if !c.Follow {
		res, err := scan.Run(common.Background(), tc, opts)
		if err != nil {
			return fail(common.DescribeTmuxError(e, tc, err), common.ExitFail)
		}
		if c.Timing {
			timing(e, res)
		}
		if emit(w, res) != nil {
			return common.ExitFail
		}
		return common.ExitOK
	}
	// [tmux] control_clients = false is --no-push for every follower (a
	// daemon's, a wait's, a subscribe's): read once, at the start.
	push := !c.NoPush && l.Config.Tmux.ControlClients
	return follow(e, w, tc, opts, rl, c.Interval, push, c.RidesDaemon && !c.Daemon, c.Daemon, fail)
}

// timing is --debug-timing: the phases' cost, then every agent pane as
// captured or capture-skipped (with why), the skipped ones next to the
// captures.
func timing(e *common.Env, res *scan.Result) {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
	}
	var agents, shot int
	for _, p := range res.Panes {
		if p.Agent != "" {
			agents++
		}
		if p.Capture != nil {
			shot++
		}
	}
	fmt.Fprintf(e.Stderr, "%s: timing: list %s, process walk %s, capture %s (%d of %d agent panes)\n",
		e.Tool, ms(res.Timing.List), ms(res.Timing.Walk), ms(res.Timing.Capture), shot, agents)
	for _, p := range res.Panes {
		switch {
		case p.Agent == "":
		case p.Capture != nil:
			fmt.Fprintf(e.Stderr, "%s: timing: %s %s captured\n", e.Tool, p.Pane, p.Agent)
		default:
			why := p.CaptureSkipped
			if why == "" {
				why = "not capturable"
			}
			fmt.Fprintf(e.Stderr, "%s: timing: %s %s capture-skipped (%s)\n", e.Tool, p.Pane, p.Agent, why)
		}
	}
}

func emit(w *record.Writer, res *scan.Result) error {
	_ = w.Write(res.Cycle)
	for _, p := range res.Streamed() {
		_ = w.Write(p)
	}
	_ = w.Write(&record.End{NowMS: res.Cycle.NowMS})
	return w.Flush()
}

// Push timing. The first push after a quiet spell is a change someone is
// waiting to see: its cycle starts PushSettle later, long enough for the
// rest of the burst (one repaint is a few writes) to land in it. Push-driven
// cycles start at least MinPushGap apart, and the pushes in between make one
// cycle at the gap, so an agent streaming output is a cycle every
// MinPushGap, not one (and a client redraw) per write. The gap runs from the
// last push-driven cycle: a change just after a poll tick does not wait.
const (
	PushSettle = 20 * time.Millisecond
	MinPushGap = 500 * time.Millisecond
)

// SettleWait bounds how long a follower whose reader is gone waits for a
// control client still attaching before it ends: tmux.ReadyWait, the
// longest one attach waits for its client's first line.
const SettleWait = tmux.ReadyWait

// follow emits a cycle every interval and early on a control-mode push.
// Control mode that fails degrades silently to polling; the pusher
// re-probes. A tmux call that times out is a skipped tick; a server that is
// gone ends the stream.
//
// It ends with its pipeline (see lib/lifeline): on its parent's death or an
// ending signal it detaches its control clients and exits with the shell's
// code for the signal; when its reader is gone, at once.
func follow(e *common.Env, w *record.Writer, tc *tmux.Client, opts scan.Options, rl *common.Reloader, interval time.Duration, push, ridesDaemon, daemon bool, fail func(string, int) int) int {
	// attaching is held while the loop attaches control clients. A reader
	// gone ends this process and, with it, every client at once (their
	// Pdeathsig); tmux before 3.7 crashes when a client goes while another
	// is still identifying, so the end waits for an attach under way, at
	// most SettleWait, and no attach starts after it.
	var attaching sync.Mutex
	var closing atomic.Bool
	lifeline.DieWithReaderAfter(e.Stdout, func() {
		closing.Store(true)
		settled := make(chan struct{})
		go func() { attaching.Lock(); close(settled) }()
		select {
		case <-settled:
		case <-time.After(SettleWait):
		}
	})
	ctx, stop := lifeline.Context(common.Background())
	defer stop()
	if interval < 100*time.Millisecond {
		interval = 100 * time.Millisecond
	}
	var pusher *tmux.Pusher
	var pushC <-chan struct{}
	if push {
		pusher = tc.NewPusher()
		defer pusher.Close()
		pushC = pusher.C
		defer tc.CloseConn()
	}
	ended := func() int {
		if s, ok := lifeline.Cause(ctx); ok {
			return s.Code()
		}
		return common.ExitFail
	}
	noted := false
	var last, lastPush, swept time.Time
	var edges scan.Edges
	captureAll := opts.CaptureAll
	for {
		last = time.Now()
		l := rl.Get()
		opts.Manifests, opts.Tuning = l.Manifests, l.Tuning()
		quiet := int64(l.Config.Daemon.QuietMS)
		var out map[string]int64
		if pusher != nil {
			// Taken without --daemon too, so the pusher does not keep every
			// pane that ever wrote.
			out = pusher.TakeOutput()
		}
		if daemon {
			edges.Note(out)
			opts.Edges = edges.Due(last.UnixMilli(), quiet)
			// The sweep reads every agent screen, the skip rule's stamps
			// included, so whatever a push missed is repaired within it.
			sweep := time.Duration(l.Config.Daemon.SweepSecs) * time.Second
			opts.CaptureAll = captureAll || swept.IsZero() || last.Sub(swept) >= sweep
			if opts.CaptureAll {
				swept = last
			}
		}
		res, err := scan.Run(ctx, tc, opts)
		if ctx.Err() != nil {
			return ended()
		}
		switch {
		case errors.Is(err, tmux.ErrTimeout):
			if !noted {
				noted = true
				fmt.Fprintf(e.Stderr, "tma: note: tmux did not answer in time; skipping a tick\n")
			}
		case err != nil:
			return fail(common.DescribeTmuxError(e, tc, err), common.ExitFail)
		default:
			if emit(w, res) != nil {
				return common.ExitFail
			}
			if ridesDaemon && pusher != nil && !closing.Load() {
				// Decided before the pushers' first attach: every control
				// client attaching is a moment a tmux before 3.7 can crash
				// in (architecture.md), and these would only duplicate
				// the daemon's.
				ridesDaemon = false
				if daemonAnswers(res.Cycle.Server, e.Getenv) {
					pusher.Close()
					pusher, pushC = nil, nil
				}
			}
			if push && !closing.Load() {
				attaching.Lock()
				ss := sessions(res)
				if pusher != nil {
					pusher.Sync(ss)
				}
				// The next ticks' list and captures go through one control
				// client instead of a tmux process each.
				tc.KeepConn(ctx, ss)
				attaching.Unlock()
			}
		}
		wait := interval - time.Since(last)
		if next := edges.Next(quiet); next > 0 {
			wait = min(wait, time.Until(time.UnixMilli(next)))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			return ended()
		case <-timer.C:
		case <-pushC:
			timer.Stop()
			wait := PushSettle
			if gap := MinPushGap - time.Since(lastPush); gap > wait {
				wait = gap
			}
			select {
			case <-ctx.Done():
				return ended()
			case <-time.After(wait):
			}
			select {
			case <-pushC:
			default:
			}
			lastPush = time.Now()
		}
	}
}

// daemonAnswers reports whether a daemon accepts connections on the
// server's socket now (a stale socket file refuses them). The connection
// is closed unasked; the daemon drops it quietly.
func daemonAnswers(server string, getenv func(string) string) bool {
	c, err := net.DialTimeout("unix", daemonpath.ForEnv(server, getenv).Socket, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func sessions(res *scan.Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range res.Panes {
		if p.SessionID != "" && !seen[p.SessionID] {
			seen[p.SessionID] = true
			out = append(out, p.SessionID)
		}
	}
	return out
}
