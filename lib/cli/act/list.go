package act

import (
	"fmt"
	"strings"
	"text/tabwriter"

	libact "github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/fleet"
)

// list is `tma act --list`: every loaded action; with --pane (one cycle)
// whether each can fire there now and, if not, why. Without --pane it
// needs no tmux server.
func (b *broker) list() int {
	if b.c.Pane == "" {
		if b.c.JSON {
			entries := []libact.ListEntry{}
			for _, a := range b.actions.Actions {
				entries = append(entries, libact.Entry(a))
			}
			return b.emit(libact.ListDoc{Schema: 1, Actions: entries})
		}
		tw := tabwriter.NewWriter(b.e.Stdout, 0, 0, 2, ' ', 0)
		for _, a := range b.actions.Actions {
			agents := strings.Join(a.Coverage(), ",")
			if agents == "" {
				agents = "*"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Kind, agents, a.Label)
		}
		_ = tw.Flush()
		return common.ExitOK
	}
	f, err := b.cycle("", nil)
	if err != nil {
		return b.fail(err)
	}
	if f.Pane(b.c.Pane) == nil {
		b.e.Errorf("no pane %s on %s", b.c.Pane, f.Cycle.Server)
		return common.ExitVanish
	}
	verdicts := b.verdicts(f, b.c.Pane)
	if b.c.JSON {
		entries := []libact.PaneEntry{}
		for i, a := range b.actions.Actions {
			e := libact.PaneEntry{ListEntry: libact.Entry(a), Fireable: verdicts[i].Fireable()}
			if r := verdicts[i].Reason; r != "" {
				e.Reason = &r
			}
			entries = append(entries, e)
		}
		return b.emit(libact.ListDoc{Schema: 1, Actions: entries})
	}
	tw := tabwriter.NewWriter(b.e.Stdout, 0, 0, 2, ' ', 0)
	for i, a := range b.actions.Actions {
		v := verdicts[i]
		if v.Fireable() {
			fmt.Fprintf(tw, "%s\t%s\tfireable\t%s\n", a.Name, a.Kind, a.Label)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Kind, v.Reason, v.Why)
		}
	}
	_ = tw.Flush()
	return common.ExitOK
}

// verdicts gates every loaded action against pane as the cycle saw it; an
// action the gate lets through but whose pane lock is held reads locked.
func (b *broker) verdicts(f *fleet.Fleet, pane string) []libact.Verdict {
	t, _, _ := b.target(f, pane)
	out := make([]libact.Verdict, len(b.actions.Actions))
	for i, a := range b.actions.Actions {
		v := libact.Gate(a, t, false)
		if v.Fireable() && libact.Held(t.Lock, f.Cycle.NowMS) {
			l, _ := libact.ParseLock(t.Lock)
			v = libact.Verdict{Reason: libact.ReasonLocked, Why: fmt.Sprintf("%s holds %s for %d ms more", l.Name, pane, max(l.ExpiryMS-f.Cycle.NowMS, 0))}
		}
		out[i] = v
	}
	return out
}

func (b *broker) emit(doc any) int {
	out, err := libact.Marshal(doc)
	if err != nil {
		return b.fail(err)
	}
	fmt.Fprintln(b.e.Stdout, string(out))
	return common.ExitOK
}
