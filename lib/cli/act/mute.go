package actcmd

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/broker"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

type muteCmd struct {
	selector.Flags
	Pane  string  `name:"pane" placeholder:"ID" help:"the pane to mute (default: $TMUX_PANE); excludes the selector flags, which mute every agent pane they match."`
	For   *string `name:"for" placeholder:"DUR" help:"how long: an integer with an optional unit s, m, h or d (a bare number is seconds); default: until --clear."`
	Clear bool    `name:"clear" help:"end the mute on the same targets (harmless on a pane that is not muted)."`
}

// muter is one tma mute invocation. The mute is the pane option
// @agent_mute_until (epoch ms; 99999999999999 until cleared): tma ls shows
// it in the muted column and as "muted": true; detection, stamping and the
// counts ignore it. tma has no notifications yet, so nothing else reads it.
type muter struct {
	e   *common.Env
	g   *common.Globals
	c   *muteCmd
	now func() int64
}

func (m *muter) usage(format string, a ...any) int {
	m.e.Errorf(format, a...)
	return common.ExitUsage
}

func (m *muter) main() int {
	c := m.c
	switch {
	case c.For != nil && c.Clear:
		return m.usage("--for and --clear exclude each other: --clear ends the mute")
	case c.Pane != "" && !tmux.ValidPaneID(c.Pane):
		return m.usage("invalid pane id %q (expected %%N)", c.Pane)
	}
	var forMS int64
	if c.For != nil {
		// An empty --for is a mistake, never "until --clear".
		var err error
		if forMS, err = act.ParseMuteFor(*c.For); err != nil {
			return m.usage("%v", err)
		}
	}
	sel, err := c.Flags.Compile()
	if err != nil {
		return m.usage("%v", err)
	}
	selecting := c.Flags.Set()
	pane := c.Pane
	switch {
	case pane != "" && selecting:
		return m.usage("--pane and the selector flags exclude each other")
	case pane == "" && !selecting:
		if p := m.e.Getenv("TMUX_PANE"); tmux.ValidPaneID(p) {
			pane = p
		} else {
			return m.usage("no target: pass --pane or selector flags (outside tmux there is no $TMUX_PANE)")
		}
	}

	l, err := m.g.Load(m.e)
	if err != nil {
		m.e.Errorf("%v", err)
		return common.ExitFail
	}
	srv := m.g.Tmux(m.e, l.Config)
	server := common.SocketDescription(m.e, srv.Target)
	panes := []string{pane}
	if selecting {
		var git *gitinfo.Resolver
		if sel.NeedsGit() {
			git = gitinfo.New()
		}
		fl, err := fleet.Run(common.Background(), srv, fleet.Options{
			Manifests: l.Manifests, Tuning: l.Tuning(), Host: common.Host(), Now: m.now, Git: git,
		})
		if err != nil {
			m.e.Errorf("%s", common.DescribeTmuxError(m.e, srv, err))
			return common.ExitFail
		}
		if fl.Cycle.Server != "" {
			cl := *srv
			cl.Target = tmux.Target{SocketPath: fl.Cycle.Server}
			srv, server = &cl, fl.Cycle.Server
		}
		panes = nil
		for _, r := range fl.Rows {
			if sel.Match(r) {
				panes = append(panes, r.Row.Pane)
			}
		}
		if len(panes) == 0 {
			return m.usage("no agent pane matches the selector on %s", server)
		}
		sort.Slice(panes, func(i, j int) bool { return paneNum(panes[i]) < paneNum(panes[j]) })
	}
	return m.apply(srv, server, panes, forMS)
}

// apply writes (or unsets) the deadline on every pane in one batch, each
// followed by a read-back of the pane id: a pane that prints nothing is
// gone (exit 3), the others get one line each on stdout.
func (m *muter) apply(srv *tmux.Client, server string, panes []string, forMS int64) int {
	now := m.now()
	until := act.MuteUntil(now, forMS)
	var lines []string
	for _, p := range panes {
		set := tmux.Set{Name: act.MuteOption, Value: strconv.FormatInt(until, 10)}
		if m.c.Clear {
			set = tmux.Set{Name: act.MuteOption, Unset: true}
		}
		l, err := tmux.Write{Pane: p, Sets: []tmux.Set{set}}.Line()
		if err != nil {
			m.e.Errorf("%v", err)
			return common.ExitFail
		}
		lines = append(lines, l, "display -p -t "+p+" '#{pane_id}'")
	}
	out, errs, err := srv.Batch(common.Background(), lines)
	if err != nil {
		if errors.Is(err, tmux.ErrNoServer) {
			m.e.Errorf("%s", common.DescribeTmuxError(m.e, srv, err))
		} else {
			m.e.Errorf("%v", err)
		}
		return common.ExitFail
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		seen[strings.TrimSpace(l)] = true
	}
	code := common.ExitOK
	for _, p := range panes {
		switch {
		case !seen[p]:
			fmt.Fprintf(m.e.Stderr, "tma: mute: no pane %s on %s\n", p, server)
			code = max(code, common.ExitVanish)
		case m.c.Clear:
			fmt.Fprintf(m.e.Stdout, "unmuted %s\n", p)
		default:
			fmt.Fprintf(m.e.Stdout, "muted %s %s\n", p, act.DescribeMute(until, forMS, time.Local))
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
		if l != "" && !broker.PaneGone(l) {
			fmt.Fprintf(m.e.Stderr, "tma: mute: tmux: %s\n", l)
			code = common.ExitFail
		}
	}
	return code
}

func paneNum(p string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(p, "%"))
	return n
}
