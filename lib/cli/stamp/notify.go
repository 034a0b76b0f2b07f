package stampcmd

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/notify"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// notifier is --notify: the daemon's stamp stage fires the episodes its
// commits win. It lives as long as the stream, so it also carries what only
// a resident firer has: the previous pass's windows for osc_progress.
type notifier struct {
	mu       sync.Mutex // a cycle's fires against the shutdown clear
	e        *common.Env
	labels   *gitinfo.Resolver
	progress notify.Progress
	tc       *tmux.Client // the last cycle's, for the shutdown clear
}

func newNotifier(e *common.Env) *notifier {
	n := &notifier{e: e, labels: gitinfo.New()}
	n.clearOnSignal()
	return n
}

// clearOnSignal keeps the shutdown promise when the stage is ended by a
// signal (the daemon's SIGTERM, its parent's death): every lit progress
// indicator is cleared first, then the signal takes its default course.
func (n *notifier) clearOnSignal() {
	ctx, _ := lifeline.Context(context.Background())
	go func() {
		<-ctx.Done()
		s, ok := lifeline.Cause(ctx)
		if !ok {
			return
		}
		n.mu.Lock()
		n.write(n.progress.ClearAll())
		signal.Reset(s.Signal)
		_ = syscall.Kill(os.Getpid(), s.Signal)
	}()
}

// arm adds the marker lines after the stamp lines; the nonce finds this
// process's read-backs in the output.
func (n *notifier) arm(cfg *config.Config, covered func(string) bool, g *record.Group, lines []string) ([]string, string) {
	arms, rearm := notify.ArmsFor(cfg, g.Panes, g.Cycle.NowMS, true, covered)
	if len(arms) == 0 && len(rearm) == 0 {
		return lines, ""
	}
	nonce := notify.Nonce()
	out := append(lines[:len(lines):len(lines)], rearm...)
	return append(out, notify.Lines(arms, nonce)...), nonce
}

// fire delivers every episode this commit won.
func (n *notifier) fire(cfg *config.Config, tc *tmux.Client, out, nonce string, nowMS int64) {
	if nonce == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	s := notify.NewSettings(cfg, n.e.Lookup)
	won := notify.Won(out, nonce)
	for i, o := range notify.FireAll(context.Background(), s, tc, notify.GitLabels(n.labels), won, nowMS) {
		for _, err := range o.Errors {
			n.e.Errorf("notify %s %s: %v", won[i].Pane, won[i].Trigger, err)
		}
	}
}

// windows lights and clears the OSC 9;4 progress of each window whose
// working rollup changed since the last pass.
func (n *notifier) windows(cfg *config.Config, tc *tmux.Client, g *record.Group, rows []*record.Row) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tc = tc
	if !cfg.Notify.OSCProgress {
		n.write(n.progress.ClearAll())
		return
	}
	n.write(n.progress.Update(g.Panes, rows))
}

// write sends progress edges: one tmux call finds the panes' ttys (edges
// are rare: two per working run of a window).
func (n *notifier) write(edges []notify.Edge) {
	if len(edges) == 0 || n.tc == nil {
		return
	}
	var lines []string
	for _, e := range edges {
		if tmux.ValidPaneID(e.Pane) {
			lines = append(lines, "display -p -t "+e.Pane+" "+tmux.Quote("TMATTY "+e.Pane+" #{pane_tty}"))
		}
	}
	out, _, err := n.tc.Batch(context.Background(), lines)
	if err != nil {
		return
	}
	ttys := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "TMATTY" {
			ttys[f[1]] = f[2]
		}
	}
	for _, e := range edges {
		if t := ttys[e.Pane]; t != "" {
			_ = notify.WriteTTY(t, e.Data)
		}
	}
}

// close clears every lit progress indicator: the end of the stream.
func (n *notifier) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.write(n.progress.ClearAll())
}
