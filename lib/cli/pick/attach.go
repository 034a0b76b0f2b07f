package pickcmd

import (
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/tmux"
)

// attach hands this terminal to the pane's session: select the pane's
// window and pane, then exec `tmux attach-session -t <session>`. Inside
// tmux it is `jump --pane`.
func (s *sess) attach(a *attachCmd) int {
	if !tmux.ValidPaneID(a.Pane) {
		s.e.Errorf("invalid pane id %q (expected %%N)", a.Pane)
		return common.ExitUsage
	}
	inside := s.e.Getenv("TMUX") != ""
	if inside && a.Print {
		s.note("inside tmux, attach is `tma jump --pane %s`: there is no argv to show (nothing moved)", a.Pane)
		return common.ExitOK
	}
	if !inside && !a.Print && !stdinIsTerminal(s.e) {
		s.e.Errorf("tma attach hands its terminal to tmux, and stdin is not a terminal\nhint: run it from a terminal, or pass --print for the command")
		return common.ExitUsage
	}
	f, err := s.cycle(nil)
	if err != nil {
		return s.fail(err)
	}
	if inside {
		return s.jump(f, jump.Pane, a.Pane, nil)
	}
	p := f.Pane(a.Pane)
	if p == nil {
		s.e.Errorf("no such pane %s on %s", a.Pane, f.Cycle.Server)
		return common.ExitVanish
	}
	if f.Row(a.Pane) == nil {
		s.note("no agent in pane %s", a.Pane)
	}
	argv := s.tc.AttachArgv(p.Session)
	if a.Print {
		q := make([]string, len(argv))
		for i, w := range argv {
			q[i] = shellWord(w)
		}
		_, _ = s.e.Stdout.Write([]byte(strings.Join(q, " ") + "\n"))
		return common.ExitOK
	}
	lines := []string{"select-window -t " + a.Pane, "select-pane -t " + a.Pane}
	if r := f.Row(a.Pane); r != nil && r.Row.Attention {
		l, _ := jump.Move("-", a.Pane, true, "", nil)
		lines = append(lines, l[1:]...)
	}
	if code := s.exec(f, lines); code != 0 {
		return code
	}
	err = s.tc.ExecAttach(p.Session)
	s.e.Errorf("exec %s: %v", argv[0], err)
	return common.ExitFail
}

func stdinIsTerminal(e *common.Env) bool {
	f, ok := e.Stdin.(interface{ Fd() uintptr })
	return ok && isatty.IsTerminal(f.Fd())
}

// shellWord quotes a word for display only when it needs it.
func shellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./%=:@+,") == "" {
		return w
	}
	return jump.ShQuote(w)
}
