package broker

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/fleet"
)

// List is `tma act --list`: every loaded action; with --pane (one cycle)
// whether each can fire there now and, if not, why. Without --pane it
// needs no tmux server.
func (b *Broker) List() int {
	if b.Req.Pane == "" {
		if b.Req.JSON {
			entries := []act.ListEntry{}
			for _, a := range b.Actions.Actions {
				entries = append(entries, act.Entry(a))
			}
			return b.emit(act.ListDoc{Schema: 1, Actions: entries})
		}
		tw := tabwriter.NewWriter(b.Stdout, 0, 0, 2, ' ', 0)
		for _, a := range b.Actions.Actions {
			agents := strings.Join(a.Coverage(), ",")
			if agents == "" {
				agents = "*"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Kind, agents, a.Label)
		}
		_ = tw.Flush()
		return act.ExitOK
	}
	f, err := b.cycle("", nil)
	if err != nil {
		return b.fail(err)
	}
	if f.Pane(b.Req.Pane) == nil {
		b.Errorf("no pane %s on %s", b.Req.Pane, f.Cycle.Server)
		return act.ExitVanish
	}
	verdicts := b.verdicts(f, b.Req.Pane)
	if b.Req.JSON {
		entries := []act.PaneEntry{}
		for i, a := range b.Actions.Actions {
			e := act.PaneEntry{ListEntry: act.Entry(a), Fireable: verdicts[i].Fireable()}
			if r := verdicts[i].Reason; r != "" {
				e.Reason = &r
			}
			entries = append(entries, e)
		}
		return b.emit(act.ListDoc{Schema: 1, Actions: entries})
	}
	tw := tabwriter.NewWriter(b.Stdout, 0, 0, 2, ' ', 0)
	for i, a := range b.Actions.Actions {
		v := verdicts[i]
		if v.Fireable() {
			fmt.Fprintf(tw, "%s\t%s\tfireable\t%s\n", a.Name, a.Kind, a.Label)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Kind, v.Reason, v.Why)
		}
	}
	_ = tw.Flush()
	return act.ExitOK
}

// verdicts gates every loaded action against pane as the cycle saw it; an
// action the gate lets through but whose pane lock is held reads locked.
func (b *Broker) verdicts(f *fleet.Fleet, pane string) []act.Verdict {
	t, _, _ := b.target(f, pane)
	out := make([]act.Verdict, len(b.Actions.Actions))
	for i, a := range b.Actions.Actions {
		v := act.Gate(a, t, false)
		if v.Fireable() && act.Held(t.Lock, f.Cycle.NowMS) {
			l, _ := act.ParseLock(t.Lock)
			v = act.Verdict{Reason: act.ReasonLocked, Why: fmt.Sprintf("%s holds %s for %d ms more", l.Name, pane, max(l.ExpiryMS-f.Cycle.NowMS, 0))}
		}
		out[i] = v
	}
	return out
}

func (b *Broker) emit(doc any) int {
	out, err := act.Marshal(doc)
	if err != nil {
		return b.fail(err)
	}
	fmt.Fprintln(b.Stdout, string(out))
	return act.ExitOK
}
