package serve

import (
	"context"
	"strings"

	"github.com/tmaproject/tma/lib/daemon"
	libhook "github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/hook/apply"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/tmux"
)

// event maps a hook event through the daemon's own manifests. One it maps
// to nothing is refused (the hook then stamps it itself, so a skewed daemon
// costs latency, not the event); one it can commit is acknowledged at once
// and handed to the one writer, so the hook's wait is the mapping, never a
// tmux call. Two commits of one event cannot both land: the guard orders
// by the event's own time.
func (d *state) event(e *daemon.Event) daemon.Reply {
	if e == nil || e.Agent == "" || e.Name == "" || !tmux.ValidPaneID(e.Pane) {
		return daemon.Reply{Code: daemon.CodeBadRequest, Error: "an event needs an agent, an event name and a pane id"}
	}
	l := d.current()
	a := l.Manifests.Get(e.Agent)
	if a == nil || a.Hooks == nil {
		return daemon.Reply{Code: daemon.CodeUnmapped, Error: "no manifest with hooks for agent " + e.Agent}
	}
	ev := libhook.Event{Agent: a, Name: e.Name, Payload: libhook.ParsePayload(e.Payload), Pane: e.Pane, Explicit: e.Explicit, NowMS: e.NowMS}
	hold, clear := libhook.Lane(a, e.Name, ev.Payload)
	if hold && l.Config.Hooks.ClaudeReplyLane.Enabled {
		return daemon.Reply{Code: daemon.CodeLane, Error: "a reply-lane hold is the hook's own"}
	}
	plan, err := libhook.Build(ev, nil)
	if err != nil {
		return daemon.Reply{Code: daemon.CodeBadRequest, Error: err.Error()}
	}
	if !plan.NeedPanes && len(plan.Lines) == 0 {
		return daemon.Reply{Code: daemon.CodeUnmapped, Error: plan.Why}
	}
	chain := func() []*proc.Proc {
		out := make([]*proc.Proc, 0, len(e.Chain))
		for _, p := range e.Chain {
			out = append(out, &proc.Proc{PID: p.PID, Comm: p.Comm})
		}
		return out
	}
	ok := d.enqueue(func(tc *tmux.Client) {
		res := apply.Run(d.ctx, tc, ev, chain, apply.Notify{})
		d.o.Log.Printf("hook %s %s on %s: %s%s", e.Agent, e.Name, res.Target, res.Why, problems(res))
		if clear && e.LaneDir != "" {
			if n := lane.ClearPane(e.LaneDir, e.LaneServer, res.Target, ""); n > 0 {
				d.o.Log.Printf("reply lane: released %d held request(s) of %s", n, res.Target)
			}
		}
		if res.Wrote {
			d.broadcast(daemon.Edge{Edge: "hook", AtMS: e.NowMS, Panes: []string{res.Target}})
		}
	})
	if !ok {
		return daemon.Reply{Code: daemon.CodeNotReady, Error: "the daemon's write queue is full"}
	}
	return daemon.Reply{OK: true}
}

func problems(r *apply.Result) string {
	switch {
	case r.Err != nil:
		return " (" + r.Err.Error() + ")"
	case r.Stderr != "":
		return " (tmux: " + r.Stderr + ")"
	}
	return ""
}

// rearm re-installs the tmux hooks the install record names for this
// server but the server lacks: a restarted server has lost them, and
// starting its daemon is the moment to put them back.
func (d *state) rearm(tc *tmux.Client) {
	rec, err := install.LoadRecord(d.o.RecordPath)
	if err != nil {
		d.o.Log.Printf("re-arm: %v", err)
		return
	}
	tr := rec.TmuxFor(d.o.Paths.Server)
	if tr == nil || len(tr.Hooks) == 0 {
		return
	}
	if err := install.CheckTmaPath(tr.Tma); err != nil {
		d.o.Log.Printf("re-arm: %v", err)
		return
	}
	th := &install.TmuxHooks{Client: tc, TmaPath: tr.Tma, Focus: d.current().Config.Focus.Events}
	entries, err := th.List(context.Background())
	if err != nil {
		d.o.Log.Printf("re-arm: listing the tmux hooks: %v", err)
		return
	}
	var lines, names []string
	for _, h := range tr.Hooks {
		present := false
		for _, en := range entries {
			if en.Hook == h && en.Ours() {
				present = true
			}
		}
		if !present {
			lines = append(lines, "set-hook -ga "+h+" "+tmux.Quote(install.ClearCommand(tr.Tma, h)))
			names = append(names, h)
		}
	}
	if len(lines) == 0 {
		return
	}
	if err := th.Apply(context.Background(), lines); err != nil {
		d.o.Log.Printf("re-arm: %v", err)
		return
	}
	d.o.Log.Printf("re-armed the tmux hooks %s (the install record names them; this server had lost them)", strings.Join(names, ", "))
}
