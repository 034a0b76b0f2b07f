package pickcmd

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/tui"
	"github.com/tmaproject/tma/lib/watch"
)

// watch is the live dashboard: tma's own terminal UI over the scoped rows,
// refreshed every second and on SIGUSR1; Enter (or a click on the selected
// row) jumps the acting client and stays open.
func (s *sess) watch(w *watchCmd) int {
	sel, err := w.Flags.Compile()
	if err != nil {
		s.e.Errorf("%v", err)
		return common.ExitUsage
	}
	if w.TemporarySession && !w.InSession {
		return s.watchTemporary(w)
	}
	in, out := os.Stdin, os.Stdout
	if !w.Print && (!isTerminal(in) || !isTerminal(out)) {
		s.e.Errorf("tma watch draws on a terminal, and stdin or stdout is not one\nhint: run it in a tmux pane or a terminal of its own")
		return common.ExitUsage
	}
	u := &watchUI{s: s, sel: sel, m: watch.NewModel(0, 0), held: &lockedBuffer{}}
	u.m.Table, u.m.Scoped = w.Table, sel != nil
	f, cfg, err := u.cycle()
	if err != nil {
		return s.fail(err)
	}
	s.surface(f)
	u.f, u.cfg = f, cfg
	u.m.SetProblems(u.problems(), s.e.Getenv("HOME"))
	u.remotes = s.startRemotes()
	defer u.remotes.Close()
	if w.Print && u.remotes != nil {
		u.remotes.Settled(settleBound(cfg.Remotes))
	}
	if cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv); err == nil {
		u.client = cl.Name
	}
	if w.Print {
		u.m.Resize(termCols(), 24)
		u.rebuild()
		for _, l := range u.m.Lines() {
			fmt.Fprintln(s.e.Stdout, l)
		}
		return common.ExitOK
	}
	if w.InSession {
		s.noPush = true // the origin is already on the trail
		s.origin = w.Origin
		if parts := strings.Split(s.e.Getenv("TMUX"), ","); len(parts) == 3 {
			s.temporary = "$" + parts[2]
		}
	}
	nudge := nudges()
	term, err := tui.Open(in, out)
	if err != nil {
		return s.fail(err)
	}
	u.term = term
	// Jumps run while the dashboard owns the terminal: their notes are held
	// until it closes.
	stderr := s.e.Stderr
	s.e.Stderr = u.held
	pane := jump.Where(f, s.e.Getenv).Pane // a pane of this server, never another's
	if pane != "" {
		_, _ = s.tc.Exec(common.Background(), []string{
			"set -p -t " + pane + " @tma_watch_pid " + strconv.Itoa(os.Getpid())})
	}
	code := func() int {
		defer term.Restore()
		return u.run(nudge)
	}()
	s.e.Stderr = stderr
	if pane != "" {
		_, _ = s.tc.Exec(common.Background(), []string{
			"if-shell -F -t " + pane + " '#{==:#{@tma_watch_pid}," + strconv.Itoa(os.Getpid()) + "}' 'set -pu -t " + pane + " @tma_watch_pid'"})
	}
	if held := u.held.String(); held != "" {
		fmt.Fprint(stderr, held)
	}
	if w.InSession && code == common.ExitOK {
		s.closeTemporary(w.Origin, u.jumped)
	}
	return code
}

func isTerminal(f *os.File) bool { return isatty.IsTerminal(f.Fd()) }

// watchTemporary is the prefix-G placement: a one-use session running the
// real watcher, the acting client switched to it, and the pane it came from
// pushed onto its return trail.
func (s *sess) watchTemporary(w *watchCmd) int {
	f, err := s.cycle(nil)
	if err != nil {
		return s.fail(err)
	}
	cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv)
	if err != nil {
		return s.fail(fmt.Errorf("--temporary-session needs a client to switch: %v", err))
	}
	// The session's watcher is started by the tmux server, in its
	// environment: the tmux this one runs goes with it (envPrefix).
	argv := append(append(s.envPrefix(), s.childArgv(f.Cycle.Server)...), "--client", cl.Name)
	argv = append(argv, "watch", "--temporary-session", "--in-session", "--origin", cl.Pane)
	if w.Table {
		argv = append(argv, "--table")
	}
	for _, kv := range []struct {
		flag string
		v    *string
	}{{"--session", w.Session}, {"--repo", w.Repo}, {"--branch", w.Branch}, {"--state", w.State}, {"--agent", w.Agent}} {
		if kv.v != nil {
			argv = append(argv, kv.flag, *kv.v)
		}
	}
	var sh []string
	for _, a := range argv {
		sh = append(sh, jump.ShQuote(a))
	}
	name := "tma-watch-" + strconv.Itoa(os.Getpid())
	opt := jump.TrailOption(cl.Name)
	out, _, err := s.tc.Run(common.Background(), "", "show-options", "-gqv", opt)
	if err != nil {
		return s.fail(err)
	}
	trail, terr := jump.TrailLine(opt, jump.Push(jump.ParseTrail(out), cl.Pane))
	if terr != nil {
		return s.fail(terr)
	}
	lines := []string{
		"new-session -d -s " + name + " " + tmux.Quote(tmux.Literal(strings.Join(sh, " "))),
		"switch-client -c " + tmux.Quote(cl.Name) + " -t " + tmux.Quote("="+name),
		trail,
	}
	return s.exec(f, lines)
}

// closeTemporary ends the one-use session this watcher runs in. On quit the
// client first goes back to where it pressed the key (and that entry leaves
// the trail); after a jump it is already elsewhere.
func (s *sess) closeTemporary(origin string, jumped bool) {
	sid := s.temporary
	if sid == "" {
		return
	}
	var lines []string
	if !jumped && origin != "" && s.g.Client != "" {
		opt := jump.TrailOption(s.g.Client)
		out, _, _ := s.tc.Run(common.Background(), "", "show-options", "-gqv", opt)
		trail := jump.ParseTrail(out)
		if n := len(trail); n > 0 && trail[n-1] == origin {
			if l, err := jump.TrailLine(opt, trail[:n-1]); err == nil {
				lines = append(lines, l)
			}
		}
		lines = append(lines, "switch-client -c "+tmux.Quote(s.g.Client)+" -t "+origin)
	}
	lines = append(lines, "kill-session -t "+tmux.Quote(sid))
	_, _ = s.tc.Exec(common.Background(), lines)
}
