package broker

import (
	"context"
	"fmt"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/tmux"
)

// Menu is `tma act --menu --pane %N`: one cycle, then a tmux menu of the
// actions fireable on the pane right now (text actions need a string the
// menu cannot ask for), handed to tmux so it outlives this process. With
// nothing fireable no menu opens; the acting client is told why.
func (b *Broker) Menu() int {
	pane := b.Req.Pane
	if pane == "" {
		pane = b.defaultPane()
	}
	if pane == "" {
		return b.usage("--menu needs --pane (outside tmux there is no $TMUX_PANE)")
	}
	f, err := b.cycle("", nil)
	if err != nil {
		return b.fail(err)
	}
	if f.Pane(pane) == nil {
		b.Errorf("no pane %s on %s", pane, f.Cycle.Server)
		return act.ExitVanish
	}
	cl, err := jump.ResolveClient(f, b.Client, b.Getenv)
	if err != nil {
		if err == jump.ErrNoClient {
			b.Errorf("no tmux client attached to %s to show a menu on", f.Cycle.Server)
			return act.ExitError
		}
		return b.fail(err)
	}
	t, _, _ := b.target(f, pane)
	var items []act.MenuItem
	for i, v := range b.verdicts(f, pane) {
		a := b.Actions.Actions[i]
		if !v.Fireable() || a.Kind == act.KindText || act.TakesArg(a) {
			continue
		}
		items = append(items, act.MenuItem{Name: a.Name, Label: a.Label, Yes: a.Confirm})
	}
	if len(items) == 0 {
		what := "no agent"
		if t.Agent != "" {
			what = t.Agent + ", " + stateOf(t)
		}
		msg := fmt.Sprintf("nothing to act on in %s (%s); tma act --list --pane %s says why", pane, what, pane)
		b.note("note: %s", msg)
		_, _, _ = b.server(f).Run(context.Background(), "", "display-message", "-c", cl.Name, tmux.DisplayText("tma: "+msg))
		return act.ExitOK
	}
	act.MenuKeys(items)
	title := fmt.Sprintf(" tma act: %s %s %s ", pane, t.Agent, stateOf(t))
	l, err := act.MenuLine(cl.Name, title, pane, menuSource(b.Req.Source), items, b.tmaArgv(f.Cycle.Server), b.ActArgs, "0.1")
	if err != nil {
		return b.fail(err)
	}
	if ok, why := b.run(b.server(f), l); !ok {
		return b.fail(fmt.Errorf("%s", why))
	}
	return act.ExitOK
}

// menuSource is what the entries report to the audit log: the surface that
// opened the menu (picker, watch), else menu.
func menuSource(s string) string {
	if s == "" || s == "cli" {
		return "menu"
	}
	return s
}
