package hookcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/hook/apply"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/tmux"
)

// HookTimeout bounds each tmux call a hook makes.
const HookTimeout = 2 * time.Second

// EventSkewMS bounds how old a caller-stamped event time (tma_at_ms) may be
// and still be taken as the evidence time.
const EventSkewMS = 60_000

// MaxPayload is the most of a payload tma reads; the rest is ignored.
const MaxPayload = 1 << 20

type cli struct {
	common.Globals
	Pane           string `name:"pane" placeholder:"ID" help:"the pane the event is about (default: $TMUX_PANE)."`
	ClearAttention string `name:"clear-attention" placeholder:"PANE" help:"clear the attention mark on arrival at PANE (and on the pane just left, per $TMA_HOOK_KIND); what the tmux hooks call."`
	Agent          string `arg:"" optional:"" help:"the agent (a manifest name, e.g. claude)."`
	Event          string `arg:"" optional:"" help:"the agent's event name (e.g. Stop)."`
	Payload        string `arg:"" optional:"" help:"the event's payload, for callers that pass it as an argument (default: stdin)."`
}

// Run is tma-hook's main. It returns 0 whatever happens.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var wrote bool // the event's stamp reached tmux
	start := time.Now()
	e := common.NewEnv("tma-hook", stdin, stdout, stderr)
	// The write's tmux client starts first thing and waits for its lines,
	// so its start-up (about half of the hook's time) runs beside kong's,
	// the manifest's and the plan's. Only inside a pane, never where a
	// daemon takes the event; an event the manifest maps to nothing
	// leaves it unused, and Abandon gives it an empty batch.
	var early *tmux.PendingBatch
	if e.Getenv("TMUX_PANE") != "" {
		early = common.EarlyBatch(e, args, HookTimeout, func(t tmux.Target) string {
			return daemon.ForEnv(daemon.ServerPath(t, e.Getenv), e.Getenv).Socket
		})
	}
	defer early.Abandon()
	var c cli
	switch verb(args) {
	case "":
		if _, _, ok := common.Parse(e, &c, "Record one agent hook event in its tmux pane: tma-hook <agent> <event> [payload]; the payload is read from stdin when not given.", args); !ok {
			return 0
		}
	default:
		var v verbs
		kctx, _, ok := common.Parse(e, &v, "The internal verbs of tma-hook: an event with named flags, the attention clear.", args)
		if !ok {
			return 0
		}
		c.Globals = v.Globals
		if kctx.Command() == "event" {
			c.Agent, c.Event, c.Pane, c.Payload = v.Event.Agent, v.Event.Kind, v.Event.Pane, v.Event.Payload
			if c.Payload == "-" {
				c.Payload = ""
			}
		} else if c.ClearAttention = v.ClearAttention.Pane; c.ClearAttention == "" {
			return 0 // an empty pane word: nothing to clear
		}
	}
	debug := e.Getenv("TMA_HOOK_DEBUG") != ""
	say := func(format string, a ...any) {
		if debug {
			fmt.Fprintf(stderr, "tma-hook: "+format+"\n", a...)
		}
	}
	ctx := context.Background()
	if c.ClearAttention != "" {
		if err := clearAttention(ctx, e, &c.Globals, c.ClearAttention, e.Getenv("TMA_HOOK_KIND")); err != nil {
			say("clear-attention: %v", err)
		}
		return 0
	}
	if c.Agent == "" || c.Event == "" {
		fmt.Fprintln(stderr, "tma-hook: usage: tma-hook <agent> <event> [payload]")
		return 0
	}
	payload := c.Payload
	if payload == "" {
		var drained <-chan struct{}
		payload, drained = readPayload(stdin)
		defer awaitDrain(drained, start)
	}
	le := e // a skipped user manifest is named only under TMA_HOOK_DEBUG, as every other hook problem
	if !debug {
		le = common.Quiet(e)
	}
	l, a, err := c.LoadAgent(le, c.Agent)
	if err != nil {
		say("%v", err)
		return 0
	}
	if a == nil {
		say("no manifest for agent %q: nothing to do", c.Agent)
		return 0
	}
	pane := c.Pane
	if pane == "" {
		pane = e.Getenv("TMUX_PANE")
	}
	if pane == "" {
		say("no pane ($TMUX_PANE unset and no --pane): nothing to do")
		return 0
	}
	parsed := hook.ParsePayload(payload)
	tc := c.Tmux(e, l.Config)
	tc.Timeout = HookTimeout
	tc.Adopt(early)
	nt := newEventNotify(e, l.Config)
	ev := hook.Event{Agent: a, Name: c.Event, Payload: parsed, Pane: pane, Explicit: c.Pane != "", NowMS: time.Now().UnixMilli()}
	if at := ev.Payload.AtMS; at > ev.NowMS-EventSkewMS && at <= ev.NowMS {
		ev.NowMS = at // the event's own time: a later-spawned hook for an earlier event loses
	}
	ev.Telemetry = fileTail(a, ev.Payload, say)
	// The claude reply lane: a permission prompt mints the request id its
	// stamp carries and holds after it; the agent's next event clears the
	// pane's held requests. Read on every fire: no reinstall.
	hold, clear := hook.Lane(a, c.Event, ev.Payload)
	laneCfg := l.Config.Hooks.ClaudeReplyLane
	if hold && laneCfg.Enabled {
		if id, err := lane.NewID(); err == nil {
			ev.Request = id
		} else {
			say("reply lane: %v", err)
		}
	}
	target := pane
	defer func() {
		// Leftovers of holds that ended without cleaning up (a hook killed
		// mid-hold) go with the next event.
		lane.Sweep(lane.Dir(e.Getenv), time.Now().UnixMilli())
		switch {
		case clear:
			if n := lane.ClearPane(lane.Dir(e.Getenv), serverKey(tc), target, ""); n > 0 {
				say("reply lane: released %d held request(s) of %s", n, target)
			}
		case ev.Request != "" && wrote:
			holdRequest(e, tc, ev, target, laneCfg.HoldMS, say)
		}
	}()
	// Tier 3: a running daemon commits the event itself (one writer) and
	// the hook is done on its ack; unreachable, refusing or too old, the
	// hook stamps the pane as ever. A reply-lane hold and a from_event fire
	// stay the hook's: both act on the stamp's own tmux call.
	if ev.Request == "" && nt == nil && handToDaemon(e, tc, l.Config, ev, say) {
		stampTail(ctx, tc, ev, say)
		return 0
	}
	// The common event is planned blind and costs one tmux spawn; a
	// registration, a subagent's bookkeeping, or an event whose session lives
	// in another pane lists the panes first (lib/hook/apply, which the
	// daemon's commits share).
	now := func() int64 { return time.Now().UnixMilli() }
	res := apply.Run(ctx, tc, ev, func() []*proc.Proc { return proc.Ancestors(os.Getppid()) }, apply.Notify{
		Arm:  func(lines []string, pane string) []string { return nt.arm(lines, pane, now()) },
		Fire: func(out string) { nt.fire(tc, out, now(), say) },
	})
	target = res.Target
	switch {
	case res.Err != nil:
		say("%s", common.DescribeTmuxError(e, tc, res.Err))
	case res.Stderr != "":
		say("tmux: %s", res.Stderr)
	}
	if res.Why != "" {
		say("%s", res.Why)
	}
	wrote = res.Wrote
	if res.Lost {
		say("reply lane: the stamp lost to newer evidence; not holding")
		ev.Request = ""
	}
	return 0
}

// DrainBy bounds, from the hook's start, how long it keeps reading a payload
// past MaxPayload so the agent's write end does not meet a closed pipe.
const DrainBy = 2500 * time.Millisecond

// readPayload reads stdin, bounded in size and time: an agent that keeps its
// end open must not hold the hook. Past MaxPayload the rest is read and
// thrown away in the background (drained closes when that is done): an
// agent writing 11 MB must not get EPIPE because tma stopped reading.
func readPayload(r io.Reader) (string, <-chan struct{}) {
	drained := make(chan struct{})
	if f, ok := r.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		close(drained)
		return "", drained
	}
	ch := make(chan []byte, 1)
	go func() {
		defer close(drained)
		b, _ := io.ReadAll(io.LimitReader(r, MaxPayload))
		ch <- b
		if len(b) == MaxPayload {
			_, _ = io.Copy(io.Discard, r)
		}
	}()
	select {
	case b := <-ch:
		return string(b), drained
	case <-time.After(HookTimeout):
		return "", drained
	}
}

// awaitDrain waits for a payload's drain, at most until DrainBy after start.
func awaitDrain(drained <-chan struct{}, start time.Time) {
	if drained == nil {
		return
	}
	select {
	case <-drained:
	case <-time.After(time.Until(start.Add(DrainBy))):
	}
}

// sep separates the fields tma-hook's own listings ask for.
const sep = "\x1f"
