package pickcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/watch"
)

// startRemotes polls every [[remote]] for a long-running surface (nil
// with none): the config's remotes when it starts; a reload does not
// add or drop one.
func (s *sess) startRemotes() *remote.Poller {
	if s.l == nil || len(s.l.Config.Remotes) == 0 {
		return nil
	}
	return remote.Poll(s.l.Config.Remotes, common.Version, time.Second)
}

// settleBound is the longest a one-frame surface (--print) waits for the
// remotes: a dial's hello and a snapshot, each bounded by its timeout.
func settleBound(rs []config.Remote) time.Duration {
	d := time.Duration(0)
	for _, r := range rs {
		d = max(d, r.Timeout())
	}
	return 2*d + time.Second
}

// jumpRemote is `tma jump --host NAME --pane ID`: one snapshot of the
// remote says the pane is there and names its server, then the window
// Enter on its row opens.
func (s *sess) jumpRemote(host, pane string) int {
	if err := s.load(); err != nil {
		return s.fail(err)
	}
	r := s.l.Config.Remote(host)
	if r == nil {
		s.e.Errorf("no [[remote]] is called %q", host)
		return common.ExitUsage
	}
	res := remote.Snapshot(common.Background(), *r, common.Version)
	if res.Err != nil {
		return s.fail(fmt.Errorf("remote %s: %v", host, res.Err))
	}
	found := false
	for _, p := range res.Panes {
		found = found || p == pane
	}
	if !found {
		s.e.Errorf("no such pane %s on %s", pane, host)
		return common.ExitVanish
	}
	f, err := s.cycle(nil)
	if err != nil {
		return s.fail(err)
	}
	return s.openRemote(f, host, res.Server, pane)
}

// openRemote is Enter on a remote row (the picker, watch, `tma jump --host`):
// a local window attached to that pane over ssh, reused when one with its
// name (host:pane) is open already, and the acting client moved there as a
// jump moves it (the return trail too). With no client to move and no
// tmux around it, the attach runs in this terminal instead.
func (s *sess) openRemote(f *fleet.Fleet, host, server, pane string) int {
	if err := s.load(); err != nil {
		return s.fail(err)
	}
	r := s.l.Config.Remote(host)
	if r == nil {
		s.e.Errorf("no [[remote]] is called %q", host)
		return common.ExitUsage
	}
	argv, err := remote.AttachArgv(*r, server, pane)
	if err != nil {
		return s.fail(err)
	}
	cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv)
	if errors.Is(err, jump.ErrNoClient) && s.e.Getenv("TMUX") == "" {
		if !stdinIsTerminal(s.e) {
			s.e.Errorf("no tmux client to open %s in, and stdin is not a terminal to attach", watch.Key(host, pane))
			return common.ExitFail
		}
		err = remote.Exec(argv)
		s.e.Errorf("exec %s: %v", argv[0], err)
		return common.ExitFail
	}
	if err != nil {
		return s.fail(err)
	}
	c := *s.tc
	if f.Cycle.Server != "" {
		c.Target = tmux.Target{SocketPath: f.Cycle.Server}
	}
	ctx := common.Background()
	name := watch.Key(host, pane)
	listing, _, err := c.Run(ctx, "", "list-panes", "-a", "-F", jump.RemoteWindowFormat)
	if err != nil {
		return s.fail(errors.New(common.DescribeTmuxError(s.e, &c, err)))
	}
	dest := jump.RemoteWindowPane(listing, name)
	if dest == "" {
		// The window goes beside the client's; from the temporary watch
		// session, beside the pane it was opened from (that session closes
		// after the jump, and the window with it).
		anchor := cl.Pane
		if s.temporary != "" && s.origin != "" {
			anchor = s.origin
		}
		here := f.Pane(anchor)
		if here == nil {
			return s.fail(fmt.Errorf("pane %s, where the window would go, is not on %s", anchor, f.Cycle.Server))
		}
		l, err := jump.RemoteWindow(here.WindowID, name, argv)
		if err != nil {
			return s.fail(err)
		}
		out, errs, err := c.Batch(ctx, []string{l})
		if err != nil {
			return s.fail(errors.New(common.DescribeTmuxError(s.e, &c, err)))
		}
		if dest = strings.TrimSpace(out); !tmux.ValidPaneID(dest) {
			return s.fail(fmt.Errorf("tmux: new-window for %s: %s", name, strings.TrimSpace(errs)))
		}
	}
	opt := jump.TrailOption(cl.Name)
	out, _, err := c.Run(ctx, "", "show-options", "-gqv", opt)
	if err != nil {
		return s.fail(errors.New(common.DescribeTmuxError(s.e, &c, err)))
	}
	trail := jump.ParseTrail(out)
	if !s.noPush && dest != cl.Pane {
		trail = jump.Push(trail, cl.Pane)
	}
	lines, err := jump.Move(cl.Name, dest, false, opt, trail)
	if err != nil {
		return s.fail(err)
	}
	return s.exec(f, lines)
}

// card is the picker's preview of the remote row key: a blocked row's
// card, asked on the connection its poller holds (no new session), within
// the remote's timeout; any other row, or a card that cannot be had, is
// the note. Only a blocked row asks: the preview follows the cursor.
func (u *surface) card(key string) string {
	note, ok := remotePreview(key)
	if !ok {
		return ""
	}
	row, timeout := blockedRemote(u.remotes, key)
	if row == nil {
		return note
	}
	return askCard(u.remotes, key, timeout, note)
}

// blockedRemote is key's row when it is a blocked remote row, and its
// remote's timeout.
func blockedRemote(p *remote.Poller, key string) (*record.AgentRow, time.Duration) {
	host, pane := watch.SplitKey(key)
	for _, st := range p.States() {
		if st.Name != host {
			continue
		}
		for i, r := range st.Rows {
			if r.Pane == pane && r.State == "blocked" {
				return &st.Rows[i], st.Timeout
			}
		}
	}
	return nil, 0
}

// askCard is key's card as a preview, or the note and why there is none.
func askCard(p *remote.Poller, key string, timeout time.Duration, note string) string {
	host, pane := watch.SplitKey(key)
	ctx, cancel := context.WithTimeout(common.Background(), timeout+time.Second)
	defer cancel()
	c, err := p.Card(ctx, host, pane)
	if err != nil {
		return note + "(no card: " + err.Error() + ")\n"
	}
	if text := c.Preview(key); text != "" {
		return text
	}
	return note
}
