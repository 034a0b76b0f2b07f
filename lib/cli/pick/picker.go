package pickcmd

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/watch"
)

// picker is `tma` with no command: fzf over every agent in attention order,
// the pane it was opened from left out; Enter jumps (clearing attention),
// Tab opens its action menu, Esc leaves quietly.
func (s *sess) picker(p *pickCmd) int {
	u := newSurface(s, nil)
	f, err := u.cycle()
	if err != nil {
		return s.fail(err)
	}
	s.surface(f)
	u.f, u.cfg = f, s.l.Config
	u.remotes = s.startRemotes()
	defer u.remotes.Close()
	if p.Print && u.remotes != nil {
		u.remotes.Settled(settleBound(s.l.Config.Remotes))
	}
	// The pane left out is one of this server's: $TMUX_PANE names a pane
	// of the server $TMUX names, which may be another one (a picker given
	// -L/-S from inside another server), where the same id is another pane.
	here := jump.Where(f, s.e.Getenv)
	if cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv); err == nil {
		u.client = cl.Name
		if here.Inside || s.clientFlag() != "" {
			u.origin = cl.Pane // in a popup, the client's current pane
		}
	}
	if here.Pane != "" {
		u.origin = here.Pane
	}
	code, err := u.run(p.Print)
	if err != nil {
		if errors.Is(err, pick.ErrNoFzf) {
			s.e.Errorf("%v", err)
			return common.ExitFail
		}
		return s.fail(err)
	}
	if p.Print {
		return common.ExitOK
	}
	switch code {
	case 0, 1, 130:
	default:
		s.e.Errorf("fzf exited %d", code)
		return common.ExitFail
	}
	if host, pane := watch.SplitKey(u.chosen); host != "" && validPane(pane) {
		if u.choice == "menu" {
			s.note("the action menu is local; answer %s with `tma act <action> --host %s --pane %s`", u.chosen, host, pane)
			return common.ExitOK
		}
		server := u.seenServer(u.chosen)
		f, err = s.cycle(nil)
		if err != nil {
			return s.fail(err)
		}
		return s.openRemote(f, host, server, pane)
	}
	if u.chosen == "" || !validPane(u.chosen) {
		return common.ExitOK // nothing picked
	}
	f, err = s.cycle(nil)
	if err != nil {
		return s.fail(err)
	}
	if u.choice == "menu" {
		// Tab: the highlighted agent's action menu, handed to tmux.
		cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv)
		if err != nil {
			return s.fail(err)
		}
		done, err := s.actMenu(f.Cycle.Server, cl.Name, u.chosen, "picker", s.e.Stderr)
		if err != nil {
			return s.fail(err)
		}
		if err := <-done; err != nil {
			return common.ExitFail // act said why on stderr
		}
		return common.ExitOK
	}
	if _, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv); errors.Is(err, jump.ErrNoClient) && s.e.Getenv("TMUX") == "" {
		// A plain terminal with no client to move: hand it to tmux.
		return s.attach(&attachCmd{Pane: u.chosen})
	}
	return s.jump(f, jump.Pane, u.chosen, nil)
}

func validPane(p string) bool { return len(p) > 1 && p[0] == '%' }

// nudges delivers SIGUSR1, the focus-change nudge.
func nudges() <-chan os.Signal {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	return c
}
