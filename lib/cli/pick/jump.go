package pickcmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/arrival"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

func (j *jumpCmd) direction() jump.Direction {
	switch {
	case j.Attention:
		return jump.Attention
	case j.Blocked:
		return jump.Blocked
	case j.Back:
		return jump.Back
	case j.Home:
		return jump.Home
	case j.Pane != "":
		return jump.Pane
	case j.Menu:
		return jump.Menu
	}
	return jump.Next
}

func (s *sess) jumpMain(j *jumpCmd) int {
	sel, err := j.Flags.Compile()
	if err != nil {
		s.e.Errorf("%v", err)
		return common.ExitUsage
	}
	d := j.direction()
	if d == jump.Pane && !tmux.ValidPaneID(j.Pane) {
		s.e.Errorf("invalid pane id %q (expected %%N)", j.Pane)
		return common.ExitUsage
	}
	if j.Host != "" && j.Host != common.Host() {
		if d != jump.Pane || j.Flags.Set() {
			s.e.Errorf("--host takes --pane and nothing else: a remote pane is reached by its id (tma jump --host %s --pane %%N)", j.Host)
			return common.ExitUsage
		}
		return s.jumpRemote(j.Host, j.Pane)
	}
	var git *gitinfo.Resolver
	if sel.NeedsGit() {
		git = gitinfo.New()
	}
	f, err := s.cycle(git)
	if err != nil {
		return s.fail(err)
	}
	s.surface(f)
	return s.jump(f, d, j.Pane, sel)
}

// scoped keeps the rows the selector matches, in pick order.
func scoped(f *fleet.Fleet, sel *selector.Selector) []*record.Row {
	var out []*record.Row
	for _, r := range f.Rows {
		if sel == nil || sel.Match(r) {
			out = append(out, r)
		}
	}
	return out
}

// jump moves the acting client after a cycle. It is `tma jump`, Enter in
// the picker and in watch, and `tma attach` inside tmux.
func (s *sess) jump(f *fleet.Fleet, d jump.Direction, pane string, sel *selector.Selector) int {
	cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv)
	if err != nil {
		if err == jump.ErrNoClient {
			s.e.Errorf("no tmux client attached to %s to move\nhint: from a terminal outside tmux, use `tma attach --pane <id>`", f.Cycle.Server)
			return common.ExitFail
		}
		return s.fail(err)
	}
	ctx := common.Background()
	notef := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		s.note("%s", msg)
		// A binding's run-shell drops stderr: tell the client that pressed it.
		if s.clientFlag() != "" {
			_, _, _ = s.tc.Run(ctx, "", "display-message", "-c", cl.Name, tmux.DisplayText("tma: "+msg))
		}
	}
	if d == jump.Menu {
		rows := scoped(f, sel)
		if len(rows) == 0 {
			notef("no agents in scope")
			return common.ExitOK
		}
		l, err := s.menuLine(f, cl.Name, rows)
		if err != nil {
			return s.fail(err)
		}
		return s.exec(f, []string{l})
	}
	opt := jump.TrailOption(cl.Name)
	out, _, err := s.tc.Run(ctx, "", "show-options", "-gqv", opt)
	if err != nil {
		return s.fail(fmt.Errorf("%s", common.DescribeTmuxError(s.e, s.tc, err)))
	}
	trail := jump.ParseTrail(out)
	live := func(p string) bool { return f.Pane(p) != nil }

	var dest string
	clear := false
	switch d {
	case jump.Back, jump.Home:
		var rest []string
		dest, rest = jump.Replay(d, trail, live, cl.Pane)
		if dest == "" {
			notef("the return trail is empty")
			if len(trail) > 0 {
				l, _ := jump.TrailLine(opt, nil)
				return s.exec(f, []string{l})
			}
			return common.ExitOK
		}
		trail = rest
	case jump.Pane:
		if f.Pane(pane) == nil {
			s.e.Errorf("no such pane %s on %s", pane, f.Cycle.Server)
			return common.ExitVanish
		}
		dest = pane
		if r := f.Row(pane); r == nil {
			notef("no agent in pane %s", pane)
		} else {
			clear = r.Row.Attention
		}
		if dest == cl.Pane {
			if !clear {
				return common.ExitOK
			}
			l, _ := jump.Move(cl.Name, dest, true, "", nil)
			return s.exec(f, l[1:])
		}
		if !s.noPush {
			trail = jump.Push(trail, cl.Pane)
		}
	default:
		r, msg := jump.Target(d, scoped(f, sel), cl.Pane)
		if r == nil {
			notef("%s", msg)
			return common.ExitOK
		}
		dest = r.Row.Pane
		clear = d != jump.Next && r.Row.Attention
		if !s.noPush {
			trail = jump.Push(trail, cl.Pane)
		}
	}
	lines, err := jump.Move(cl.Name, dest, clear, opt, trail)
	if err != nil {
		return s.fail(err)
	}
	if d == jump.Next && dest != cl.Pane {
		// Marked before the move: the attention-clear hooks the move fires
		// leave every mark alone (lib/arrival).
		l, err := arrival.MarkLine(dest, time.Now().UnixMilli())
		if err != nil {
			return s.fail(err)
		}
		lines = append([]string{l}, lines...)
	}
	return s.exec(f, lines)
}

// exec runs planned lines against the server the cycle observed.
func (s *sess) exec(f *fleet.Fleet, lines []string) int {
	c := *s.tc
	if f.Cycle.Server != "" {
		c.Target = tmux.Target{SocketPath: f.Cycle.Server}
	}
	errs, err := c.Exec(common.Background(), lines)
	if err != nil {
		return s.fail(fmt.Errorf("%s", common.DescribeTmuxError(s.e, &c, err)))
	}
	if errs = strings.TrimSpace(errs); errs != "" {
		return s.fail(fmt.Errorf("tmux: %s", errs))
	}
	return common.ExitOK
}

func (s *sess) menuLine(f *fleet.Fleet, client string, rows []*record.Row) (string, error) {
	glyph := func(class string) string { return s.l.Config.PickerStyle(class).Glyph }
	return jump.MenuLine(client, "tma agents", rows, append(s.envPrefix(), tmaArgv(f.Cycle.Server)...), glyph, f.Cycle.NowMS, "0.1")
}
