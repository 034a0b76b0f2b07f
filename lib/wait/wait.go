package wait

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
)

// Target kinds.
const (
	TargetPane  = "pane"
	TargetAgent = "agent" // pins to the first pane it observes
	TargetAny   = "any"
	TargetAll   = "all"
	TargetCount = "count"
)

// Exit codes.
const (
	ExitReached = 0
	ExitFail    = 1
	ExitUsage   = 2
	ExitVanish  = 3
	ExitDied    = 4
	ExitTimeout = 124
)

// Spec is one wait.
type Spec struct {
	Target string
	Pane   string // TargetPane
	Agent  string // the --agent selector (TargetAgent, or scoping the others)
	Count  int    // TargetCount
	Until  map[string]bool
	Since  int64 // episode_ms must be strictly greater
	Sel    *selector.Selector
}

// Decision is what one cycle means for the wait.
type Decision struct {
	Done  bool
	Code  int
	Rows  []*record.Row // the matched rows, when Done with ExitReached
	Msg   string        // for stderr, when Done with a failure
	Note  string        // a one-time hint (a --pane that looks like a typo)
	Multi bool          // print the ls document / one line per row
}

// Waiter carries what a wait has learnt across cycles: the pinned pane or
// membership, and which panes were seen carrying an agent.
type Waiter struct {
	Spec    Spec
	pinned  bool
	members []string        // --all membership, or the pinned --agent pane
	seen    map[string]bool // panes seen carrying an agent
	existed map[string]bool // panes seen on the server at all
	hinted  bool
}

// New returns a waiter for spec.
func New(s Spec) *Waiter {
	return &Waiter{Spec: s, seen: map[string]bool{}, existed: map[string]bool{}}
}

// States renders --until for messages: "idle", "idle or blocked".
func (w *Waiter) States() string {
	var s []string
	for _, t := range selector.Tokens {
		if w.Spec.Until[t] {
			s = append(s, t)
		}
	}
	if len(s) <= 2 {
		return strings.Join(s, " or ")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func (w *Waiter) matches(r *record.Row) bool {
	a := &r.Row
	ok := w.Spec.Until[a.State] || a.Done && w.Spec.Until["done"]
	if !ok {
		return false
	}
	if w.Spec.Since > 0 {
		ep := int64(0)
		if a.EpisodeMS != nil {
			ep = *a.EpisodeMS
		}
		if ep <= w.Spec.Since {
			return false
		}
	}
	return true
}

func (w *Waiter) inScope(r *record.Row) bool {
	if w.Spec.Agent != "" && r.Row.Agent != w.Spec.Agent {
		return false
	}
	return w.Spec.Sel == nil || w.Spec.Sel.Match(r)
}

// Observe folds one cycle: rows are every agent row of the cycle (unfiltered),
// panes every pane id on the server.
func (w *Waiter) Observe(rows []*record.Row, panes []string) Decision {
	rows = asRead(rows)
	byPane := map[string]*record.Row{}
	for _, r := range rows {
		byPane[r.Row.Pane] = r
	}
	exists := map[string]bool{}
	for _, p := range panes {
		exists[p] = true
		w.existed[p] = true
	}
	for _, r := range rows {
		w.seen[r.Row.Pane] = true
	}

	switch w.Spec.Target {
	case TargetPane:
		return w.single(w.Spec.Pane, byPane, exists)
	case TargetAgent:
		if !w.pinned {
			var cands []string
			for _, r := range rows {
				if w.inScope(r) {
					cands = append(cands, r.Row.Pane)
				}
			}
			switch len(cands) {
			case 0:
				return Decision{}
			case 1:
				w.pinned, w.members = true, cands
			default:
				sort.Strings(cands)
				return Decision{Done: true, Code: ExitFail, Msg: fmt.Sprintf("--agent %q matches %d panes (%s); target one with --pane", w.Spec.Agent, len(cands), strings.Join(cands, ", "))}
			}
		}
		return w.single(w.members[0], byPane, exists)
	case TargetAny:
		var hit []*record.Row
		for _, r := range rows {
			if w.inScope(r) && w.matches(r) {
				hit = append(hit, r)
			}
		}
		if len(hit) > 0 {
			return Decision{Done: true, Rows: hit[:1]}
		}
	case TargetAll:
		if !w.pinned {
			for _, r := range rows {
				if w.inScope(r) {
					w.members = append(w.members, r.Row.Pane)
				}
			}
			w.pinned = true
			if len(w.members) == 0 {
				return Decision{Done: true, Code: ExitUsage, Msg: "--all matches no agent pane in scope: nothing to wait for"}
			}
		}
		// Every member is judged every cycle: one that died ends the barrier
		// even while an earlier one is still on its way.
		var got []*record.Row
		waiting := false
		for _, m := range w.members {
			d := w.single(m, byPane, exists)
			switch {
			case d.Done && d.Code != ExitReached:
				return d // a member's own verdict: 3 for its pane, 4 for its agent
			case !d.Done:
				waiting = true
			default:
				got = append(got, d.Rows...)
			}
		}
		if waiting {
			return Decision{}
		}
		return Decision{Done: true, Rows: got, Multi: true}
	case TargetCount:
		var hit []*record.Row
		for _, r := range rows {
			if w.inScope(r) && w.matches(r) {
				hit = append(hit, r)
			}
		}
		if len(hit) >= w.Spec.Count {
			return Decision{Done: true, Rows: hit[:w.Spec.Count], Multi: true}
		}
	}
	return Decision{}
}

// asRead gives each row as the cycle read it: an idle row whose done the
// same cycle retired (DoneCleared: a key typed in a client showing the pane
// between the turn's end and this cycle, which the fold's input clear
// honours) reached done, and a wait for done is answered with it as done,
// as subscribe --events reports it. A done retired by a return to work in
// the same cycle is not recovered: the row carries the new episode's
// since, not the done's (streams.md).
func asRead(rows []*record.Row) []*record.Row {
	var out []*record.Row
	for i, r := range rows {
		if r.DoneCleared && r.Row.State == "idle" && !r.Row.Done {
			if out == nil {
				out = append([]*record.Row(nil), rows...)
			}
			c := *r
			c.Row.Attention, c.Row.Done = true, true
			out[i] = &c
		}
	}
	if out == nil {
		return rows
	}
	return out
}

// single judges one pane: reached, still waiting, vanished (3) or its agent
// died (4).
func (w *Waiter) single(pane string, byPane map[string]*record.Row, exists map[string]bool) Decision {
	r := byPane[pane]
	switch {
	case r != nil && w.matches(r):
		return Decision{Done: true, Rows: []*record.Row{r}}
	case r != nil:
		return Decision{}
	case !exists[pane] && w.existed[pane]:
		return Decision{Done: true, Code: ExitVanish, Msg: fmt.Sprintf("the waited-on pane %s vanished before reaching %s (exit 3)", pane, w.States())}
	case !exists[pane]:
		d := Decision{}
		if !w.hinted {
			w.hinted = true
			d.Note = fmt.Sprintf("pane %s does not exist on this server (yet): waiting for it to appear and run an agent (a typo?)", pane)
		}
		return d
	case w.seen[pane]:
		return Decision{Done: true, Code: ExitDied, Msg: fmt.Sprintf("the agent on pane %s exited before reaching %s (exit 4)", pane, w.States())}
	}
	return Decision{} // a pane with no agent yet: the agent may launch later
}
