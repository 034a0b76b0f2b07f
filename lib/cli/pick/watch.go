package pick

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/jump"
	libpick "github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/tmux"
)

// watch is the live dashboard: fzf over the scoped rows, refreshed every
// second and on SIGUSR1; Enter jumps the acting client and stays open.
func (s *sess) watch(w *watchCmd) int {
	sel, err := w.Flags.Compile()
	if err != nil {
		s.e.Errorf("%v", err)
		return common.ExitUsage
	}
	if w.TemporarySession && !w.InSession {
		return s.watchTemporary(w)
	}
	u := newSurface(s, true, sel)
	u.table = w.Table
	f, err := u.cycle()
	if err != nil {
		return s.fail(err)
	}
	u.f = f
	if cl, err := jump.ResolveClient(f, s.g.Client, s.e.Getenv); err == nil {
		u.client = cl.Name
	}
	// Jumps run in this process while fzf owns the terminal: their notes
	// are held until the dashboard closes.
	stderr := s.e.Stderr
	s.e.Stderr = &u.held
	pane := s.e.Getenv("TMUX_PANE")
	if pane != "" && !w.Print {
		_, _ = s.tc.Exec(common.Background(), []string{
			"set -p -t " + pane + " @tma_watch_pid " + strconv.Itoa(os.Getpid())})
	}
	if w.InSession {
		s.noPush = true // the origin is already on the trail
		if parts := strings.Split(s.e.Getenv("TMUX"), ","); len(parts) == 3 {
			s.temporary = "$" + parts[2]
		}
	}
	code, err := u.run(w.Print)
	s.e.Stderr = stderr
	if pane != "" && !w.Print {
		_, _ = s.tc.Exec(common.Background(), []string{
			"if-shell -F -t " + pane + " '#{==:#{@tma_watch_pid}," + strconv.Itoa(os.Getpid()) + "}' 'set -pu -t " + pane + " @tma_watch_pid'"})
	}
	if held := u.held.String(); held != "" {
		fmt.Fprint(stderr, held)
	}
	if err != nil {
		if errors.Is(err, libpick.ErrNoFzf) {
			s.e.Errorf("%v", err)
			return common.ExitFail
		}
		return s.fail(err)
	}
	if w.InSession {
		s.closeTemporary(w.Origin, false)
	}
	switch code {
	case 0, 1, 130:
		return common.ExitOK
	}
	s.e.Errorf("fzf exited %d", code)
	return common.ExitFail
}

// watchJump is Enter: one cycle, then the jump (clearing attention); in a
// temporary session the session goes too.
func (u *surface) watchJump(pane string) {
	if !validPane(pane) {
		return
	}
	f, err := u.cycle()
	if err != nil {
		u.hold("%v", err)
		return
	}
	u.s.jump(f, jump.Pane, pane, nil)
	u.publish(f)
	if u.s.temporary != "" {
		u.s.closeTemporary("", true)
	}
}

// watchMenu is `a`: the menu for the row under the cursor (the agent menu
// until `tma act --menu` exists), drawn by tmux over the dashboard, which
// keeps refreshing behind it.
func (u *surface) watchMenu(pane string) {
	u.mu.Lock()
	f, client := u.f, u.client
	u.mu.Unlock()
	if client == "" || f == nil {
		return
	}
	rows := scoped(f, u.sel)
	// The highlighted agent leads the menu.
	for i, r := range rows {
		if r.Row.Pane == pane && i > 0 {
			rows = append(append(rows[i:i+1:i+1], rows[:i]...), rows[i+1:]...)
			break
		}
	}
	if len(rows) == 0 {
		return
	}
	l, err := u.s.menuLine(f, client, rows)
	if err == nil {
		u.s.exec(f, []string{l})
	}
}

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
	argv := append(selfArgv(f.Cycle.Server), "--client", cl.Name)
	if s.g.Config != "" {
		argv = append(argv, "--config", s.g.Config)
	}
	if s.g.ManifestDir != "" {
		argv = append(argv, "--manifest-dir", s.g.ManifestDir)
	}
	argv = append(argv, "watch", "--temporary-session", "--in-session", "--origin", cl.Pane)
	if w.Table {
		argv = append(argv, "--table")
	}
	for _, kv := range [][2]string{{"--session", w.Session}, {"--repo", w.Repo}, {"--branch", w.Branch}, {"--state", w.State}, {"--agent", w.Agent}} {
		if kv[1] != "" {
			argv = append(argv, kv[0], kv[1])
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
