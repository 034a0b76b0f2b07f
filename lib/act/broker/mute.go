package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

// Mute is one `tma mute`: the deadline @agent_mute_until (epoch ms;
// 99999999999999 until cleared) written on, or cleared from, every target
// in one batch. tma ls shows it; detection, stamping and the counts ignore
// it; notify stays silent on a muted pane.
type Mute struct {
	// Pane is the one target, or "" for every agent pane Selector
	// matches (one cycle resolves them).
	Pane     string
	Selector *selector.Selector
	ForMS    int64 // 0: until cleared
	Clear    bool

	Manifests *manifest.Set
	Tuning    fold.Tuning
	Tmux      *tmux.Client
	Host      string
	// Server names the server in messages until a cycle names it by its
	// #{socket_path}.
	Server            string
	Now               func() int64
	Stdout, Stderr    io.Writer
	Errorf            func(format string, a ...any)
	DescribeTmuxError func(c *tmux.Client, err error) string
}

// Run resolves the targets and writes the deadline; it returns the exit
// code (3 when a pane is gone, 2 when the selector matches nothing).
func (m *Mute) Run() int {
	srv, server := m.Tmux, m.Server
	panes := []string{m.Pane}
	if m.Pane == "" {
		var git *gitinfo.Resolver
		if m.Selector != nil && m.Selector.NeedsGit() {
			git = gitinfo.New()
		}
		fl, err := fleet.Run(context.Background(), srv, fleet.Options{
			Manifests: m.Manifests, Tuning: m.Tuning, Host: m.Host, Now: m.Now, Git: git,
		})
		if err != nil {
			m.Errorf("%s", m.DescribeTmuxError(srv, err))
			return act.ExitError
		}
		if fl.Cycle.Server != "" {
			cl := *srv
			cl.Target = tmux.Target{SocketPath: fl.Cycle.Server}
			srv, server = &cl, fl.Cycle.Server
		}
		panes = nil
		for _, r := range fl.Rows {
			if m.Selector == nil || m.Selector.Match(r) {
				panes = append(panes, r.Row.Pane)
			}
		}
		if len(panes) == 0 {
			m.Errorf("no agent pane matches the selector on %s", server)
			return act.ExitUsage
		}
		sort.Slice(panes, func(i, j int) bool { return paneNum(panes[i]) < paneNum(panes[j]) })
	}
	return m.apply(srv, server, panes)
}

// apply writes (or unsets) the deadline on every pane in one batch, each
// followed by a read-back of the pane id: a pane that prints nothing is
// gone (exit 3), the others get one line each on stdout.
func (m *Mute) apply(srv *tmux.Client, server string, panes []string) int {
	now := m.Now()
	until := act.MuteUntil(now, m.ForMS)
	var lines []string
	for _, p := range panes {
		set := tmux.Set{Name: act.MuteOption, Value: strconv.FormatInt(until, 10)}
		if m.Clear {
			set = tmux.Set{Name: act.MuteOption, Unset: true}
		}
		l, err := tmux.Write{Pane: p, Sets: []tmux.Set{set}}.Line()
		if err != nil {
			m.Errorf("%v", err)
			return act.ExitError
		}
		lines = append(lines, l, "display -p -t "+p+" '#{pane_id}'")
	}
	out, errs, err := srv.Batch(context.Background(), lines)
	if err != nil {
		if errors.Is(err, tmux.ErrNoServer) {
			m.Errorf("%s", m.DescribeTmuxError(srv, err))
		} else {
			m.Errorf("%v", err)
		}
		return act.ExitError
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		seen[strings.TrimSpace(l)] = true
	}
	code := act.ExitOK
	for _, p := range panes {
		switch {
		case !seen[p]:
			fmt.Fprintf(m.Stderr, "tma: mute: no pane %s on %s\n", p, server)
			code = max(code, act.ExitVanish)
		case m.Clear:
			fmt.Fprintf(m.Stdout, "unmuted %s\n", p)
		default:
			fmt.Fprintf(m.Stdout, "muted %s %s\n", p, act.DescribeMute(until, m.ForMS, time.Local))
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
		if l != "" && !PaneGone(l) {
			fmt.Fprintf(m.Stderr, "tma: mute: tmux: %s\n", l)
			code = act.ExitError
		}
	}
	return code
}

func paneNum(p string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(p, "%"))
	return n
}
