package actcmd

import (
	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/broker"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

type muteCmd struct {
	selector.Flags
	Pane  string  `name:"pane" placeholder:"ID" help:"the pane to mute (default: $TMUX_PANE); excludes the selector flags, which mute every agent pane they match."`
	For   *string `name:"for" placeholder:"DUR" help:"how long: an integer with an optional unit s, m, h or d (a bare number is seconds); default: until --clear."`
	Clear bool    `name:"clear" help:"end the mute on the same targets (harmless on a pane that is not muted)."`
	// Host is refused: a mute is a pane option on its host, and serve has
	// no frame that writes one (docs/serve.md).
	Host string `name:"host" hidden:"" placeholder:"NAME"`
}

// muter is one tma mute invocation: the flags checked and the target
// named, then a lib/act/broker.Mute writes the deadline.
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
	case c.Host != "" && c.Host != common.Host():
		return m.usage("mute is local: a mute is the pane option @agent_mute_until on the pane's own host, and tma serve has no frame that sets one; run it there (ssh %s tma mute …)", c.Host)
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
	mu := &broker.Mute{Pane: pane, Selector: sel, ForMS: forMS, Clear: c.Clear,
		Manifests: l.Manifests, Tuning: l.Tuning(), Tmux: srv, Host: common.Host(),
		Server: common.SocketDescription(m.e, srv.Target), Now: m.now,
		Stdout: m.e.Stdout, Stderr: m.e.Stderr, Errorf: m.e.Errorf,
		DescribeTmuxError: func(tc *tmux.Client, err error) string { return common.DescribeTmuxError(m.e, tc, err) },
	}
	return mu.Run()
}
