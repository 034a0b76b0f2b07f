package pickcmd

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/watch"
)

// A surface is the picker: fzf draws, this process drives. fzf gets the
// first frame on stdin; afterwards every `load` event runs
// `tma-pick feed <sock> load`, whose answer chains a refresh of the preview
// and `reload-sync(tma-pick feed <sock> rows)`, which blocks until the next
// frame is due (a one-second tick, a SIGUSR1 nudge, a resize) and prints it.
// Keys and clicks reach this process the same way (execute-silent /
// transform). tma watch is not fzf: it has its own terminal UI (watch_ui.go, over lib/watch's model).
type surface struct {
	s     *sess
	sel   *selector.Selector
	git   *gitinfo.Resolver
	gitAt time.Time
	feed  string // the feed command prefix, shell-quoted

	mu     sync.Mutex
	cond   *sync.Cond
	closed bool
	f      *fleet.Fleet
	cfg    *config.Config // the config f's cycle ran with
	origin string         // the pane left out of the picker
	client string         // the acting client, "" when none
	cols   int
	order  []string // the picker's stable row order
	gen    int
	shown  int
	frame  string
	panes  []string // the panes of the latest frame, in order
	// focused is the row fzf's cursor is on, as its focus event reports
	// it: a left click runs after fzf has moved the cursor to the clicked
	// row, so this still names the row that was selected before the click.
	focused string

	// transcript: ctrl-t swapped the preview for the highlighted pane's
	// transcript (session-local, never saved); the two preview commands
	// fzf is switched between.
	transcript               bool
	screenCmd, transcriptCmd string

	seen           map[string]entry // the picker's last row of each key
	remotes        *remote.Poller   // nil with no [[remote]]
	choice, chosen string           // picker: "pick" or "menu", and the pane
	// held is what the picker would say on stderr while fzf owns the
	// terminal (cycle errors, a reload's warnings): printed once fzf has
	// closed. A file left broken is shown in fzf's header meanwhile.
	held lockedBuffer
	// problems are the files the latest cycle's load left out
	// (Reloader.Problems), shown in fzf's header; shownHeader is what
	// fzf shows.
	problems    []string
	shownHeader string
}

func newSurface(s *sess, sel *selector.Selector) *surface {
	u := &surface{s: s, sel: sel, git: gitinfo.New(), gitAt: time.Now(), cols: termCols(), seen: map[string]entry{}}
	u.cond = sync.NewCond(&u.mu)
	return u
}

// cycle runs one full cycle with git labels (the resolver is renewed every
// 30 s so a branch switch shows up).
func (u *surface) cycle() (*fleet.Fleet, error) {
	if time.Since(u.gitAt) > 30*time.Second {
		u.git, u.gitAt = gitinfo.New(), time.Now()
	}
	return u.s.cycle(u.git)
}

// publish makes f the latest state and renders a new frame.
func (u *surface) publish(f *fleet.Fleet) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if f != nil {
		// The config is taken here, on the goroutine that ran the cycle
		// (which may have reloaded it): render runs on others too.
		u.f, u.cfg = f, u.s.l.Config
		u.problems = u.s.rl.Problems()
	}
	u.render()
	u.gen++
	u.cond.Broadcast()
}

// render draws the frame from u.f and the remotes' latest states: the
// local rows first (they never wait for a remote), then each remote's
// rows, then a dimmed header for each remote that has none and why.
// Caller holds u.mu.
func (u *surface) render() {
	f, cfg := u.f, u.cfg
	var ents []entry
	for _, r := range scoped(f, u.sel) {
		if r.Row.Pane != u.origin {
			ents = append(ents, entry{key: r.Row.Pane, row: r})
		}
	}
	rents, heads, down := remoteEntries(u.remotes.States(), u.sel)
	ents = append(ents, rents...)
	var its []watch.Item
	for _, e := range u.stable(ents, down) {
		var it watch.Item
		if e.host == "" {
			it = watch.Items(f, []*record.Row{e.row}, cfg)[0]
		} else {
			it = watch.RemoteItems(e.host, []*record.Row{e.row}, f.Cycle.NowMS, cfg)[0]
		}
		it.Gone = e.gone
		its = append(its, it)
	}
	if u.remotes != nil {
		watch.Label(its, common.Host())
		its = append(its, heads...)
	}
	lines := watch.ListLines(its, u.cols)
	var b strings.Builder
	u.panes = u.panes[:0]
	for i, it := range its {
		u.panes = append(u.panes, it.Pane)
		b.WriteString(it.Pane + "\t" + lines[i] + "\n")
	}
	u.frame = b.String()
}

// entry is one row of a frame under its key: the pane id for a local row,
// watch.Key(host, pane) for a remote one.
type entry struct {
	key, host string
	row       *record.Row
	gone      bool
}

// remoteEntries are the remotes' rows that sel matches, each host's in
// pick order; the header items of the remotes with no rows (connecting,
// or why not); and those hosts, whose rows are not "gone" but unknown.
func remoteEntries(sts []remote.State, sel *selector.Selector) (ents []entry, heads []watch.Item, down map[string]bool) {
	down = map[string]bool{}
	for _, st := range sts {
		switch {
		case st.Pending:
			heads = append(heads, watch.Header(st.Name+": connecting…"))
			down[st.Name] = true
			continue
		case st.Rows == nil:
			heads = append(heads, watch.Header(st.Name+": "+remote.Why(st.Err)))
			down[st.Name] = true
			continue
		}
		var rows []*record.Row
		for _, a := range st.Rows {
			if r := remote.Row(a); sel == nil || sel.Match(r) {
				rows = append(rows, r)
			}
		}
		fleet.PickOrder(rows)
		for _, r := range rows {
			ents = append(ents, entry{key: watch.Key(st.Name, r.Row.Pane), host: st.Name, row: r})
		}
	}
	return ents, heads, down
}

// stable keeps the picker's rows where they first appeared (a row does not
// move under the cursor while you aim at it); new agents are appended, and
// a pane that lost its agent stays as a dimmed "gone" row. The rows of a
// host that is down are left out until it answers again (they are not
// known to be gone).
func (u *surface) stable(ents []entry, down map[string]bool) []entry {
	by := map[string]entry{}
	for _, e := range ents {
		by[e.key] = e
		if !contains(u.order, e.key) {
			u.order = append(u.order, e.key)
		}
	}
	var out []entry
	for _, k := range u.order {
		if e, ok := by[k]; ok {
			out = append(out, e)
			u.seen[k] = e
			continue
		}
		e, ok := u.seen[k]
		if !ok || down[e.host] {
			continue
		}
		e.gone = true
		out = append(out, e)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// tick drives a cycle every second and on SIGUSR1 until the surface closes.
func (u *surface) tick(nudge <-chan os.Signal, stop <-chan struct{}) {
	refresh(nudge, stop, func() bool {
		f, err := u.cycle()
		if err != nil {
			u.hold("%v", err)
		} else {
			u.publish(f)
		}
		return true
	})
}

// refresh calls do every second and on each SIGUSR1 (the focus-change
// nudge) until stop closes or do reports false: the picker's and watch's
// refresh loop.
func refresh(nudge <-chan os.Signal, stop <-chan struct{}, do func() bool) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-nudge:
		}
		if !do() {
			return
		}
	}
}

// follow draws a new frame whenever a remote's state changes: a remote
// answers (or fails) on its own clock, not the local cycle's.
func (u *surface) follow(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-u.remotes.Changed():
			u.publish(nil)
		}
	}
}

// seenServer is the server of the row last drawn under key ("" when none).
func (u *surface) seenServer(key string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if e, ok := u.seen[key]; ok {
		return e.row.Row.Server
	}
	return ""
}

func (u *surface) hold(format string, a ...any) { u.held.hold(format, a...) }

// header is the text of fzf's header: the problems as watch.Notices,
// wrapped at the list's width ("" for none). fzf indents its header by
// two columns, and the preview takes the rest of a wide terminal. Caller
// holds u.mu.
func (u *surface) header() string {
	w := u.cols
	if w >= watch.Wide {
		w = w * 45 / 100
	}
	return strings.Join(watch.Notices(u.problems, u.s.e.Getenv("HOME"), w-3), "\n")
}

// serve answers feed requests until the listener closes.
func (u *surface) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go u.answer(c)
	}
}

func (u *surface) answer(c net.Conn) {
	defer c.Close()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return
	}
	verb, arg := f[0], ""
	cols, _ := strconv.Atoi(f[1])
	if len(f) > 2 {
		arg = f[2]
	}
	u.mu.Lock()
	if cols > 0 && cols != u.cols {
		u.cols = cols
		if u.f != nil {
			u.render()
			u.gen++
			u.cond.Broadcast()
		}
	}
	u.mu.Unlock()
	if verb == "card" {
		// Asked without the lock: the answer may wait on the remote.
		_, _ = io.WriteString(c, u.card(arg))
		return
	}
	_, _ = io.WriteString(c, u.handle(verb, arg))
}

// handle answers one request; the answer is what the feed process prints.
func (u *surface) handle(verb, arg string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch verb {
	case "rows":
		for u.gen <= u.shown && !u.closed {
			u.cond.Wait()
		}
		u.shown = u.gen
		return u.frame
	case "load":
		// The header changes only when the notices do: a file broke, or
		// was mended.
		ans := "refresh-preview"
		if u.header() != u.shownHeader {
			ans += "+transform-header(" + u.feed + " header)"
		}
		return ans + "+reload-sync(" + u.feed + " rows)"
	case "header":
		u.shownHeader = u.header()
		return u.shownHeader
	case "pick", "menu":
		u.choice, u.chosen = verb, arg
	case "focus":
		u.focused = arg
	case "click":
		// fzf has already moved the cursor to the clicked row; the focus
		// event for that move comes after this binding. A click on the
		// row that was already selected is Enter.
		if arg != "" && arg == u.focused {
			u.choice, u.chosen = "pick", arg
			return "abort"
		}
		u.focused = arg
	case "layout":
		return u.layout()
	case "preview-mode":
		u.transcript = !u.transcript
		if u.transcript {
			return "change-preview(" + u.transcriptCmd + ")"
		}
		return "change-preview(" + u.screenCmd + ")"
	}
	return ""
}

// previewWindow is the preview beside the list. fzf's own size threshold
// measures the preview, not the terminal, so the 76-column rule is ours:
// the start and resize events ask for the layout (see layout).
const previewWindow = "right,55%,border-left"

func (u *surface) layout() string {
	if u.cols < watch.Wide {
		return "change-preview-window(hidden)"
	}
	return "change-preview-window(" + previewWindow + ")"
}

func (u *surface) close() {
	u.mu.Lock()
	u.closed = true
	u.cond.Broadcast()
	u.mu.Unlock()
}

// fzfArgs are the structural flags, passed after the user's
// FZF_DEFAULT_OPTS (which fzf reads itself) so theirs cannot break them.
// The mouse: fzf reports clicks and the wheel but no pointer motion, so the
// picker has no hover; the wheel moves three rows (up is toward the top in
// the reverse layout), a click selects, and a click on the row already
// selected (the focus event tells) or a double-click jumps.
func (u *surface) fzfArgs(self []string) []string {
	q := func(argv ...string) string {
		var w []string
		for _, a := range argv {
			w = append(w, jump.ShQuote(a))
		}
		return strings.Join(w, " ")
	}
	// A remote row's preview is asked of this process (the card, over the
	// connection its poller holds), a local one is the pane's capture.
	preview := "case {1} in *:%*) " + u.feed + " card {1};; *) " + q(append(self, "preview")...) + " {1};; esac"
	u.screenCmd = preview
	// The transcript preview is tma-transcript's text page (its stderr
	// too: the older line, or the refusal that says why there is none);
	// a header row names no pane and shows nothing.
	u.transcriptCmd = "case {1} in %[0-9]*) " + q(transcriptArgv(self)...) + " --last 50 --pane {1} 2>&1;; esac"
	return []string{
		"--ansi", "--no-multi", "--no-sort", "--no-tac", "--no-tmux", "--no-height", "--no-print-query",
		"--no-expect", "--no-select-1", "--no-exit-0", "--no-read0", "--no-print0", "--no-track",
		"--layout=reverse", "--delimiter=\t", "--with-nth=2..", "--nth=..", "--with-shell=sh -c",
		"--preview=" + preview, "--preview-window=" + strings.TrimSuffix(strings.TrimPrefix(u.layout(), "change-preview-window("), ")"),
		"--prompt=tma> ", "--info=inline-right", "--header=" + u.shownHeader,
		"--bind=load:transform(" + u.feed + " load)",
		"--bind=resize:transform(" + u.feed + " layout)",
		"--bind=enter:execute-silent(" + u.feed + " pick {1})+abort",
		"--bind=tab:execute-silent(" + u.feed + " menu {1})+abort",
		"--bind=double-click:execute-silent(" + u.feed + " pick {1})+abort",
		"--bind=focus:execute-silent(" + u.feed + " focus {1})",
		"--bind=left-click:transform(" + u.feed + " click {1})",
		"--bind=scroll-up:up+up+up",
		"--bind=scroll-down:down+down+down",
		"--bind=ctrl-t:transform(" + u.feed + " preview-mode)",
	}
}

// transcriptArgv is `tma transcript` as the picker's preview runs it: the
// tma-transcript beside this binary (else PATH's), on the same server.
func transcriptArgv(self []string) []string {
	bin := "tma-transcript"
	if beside := filepath.Join(filepath.Dir(self[0]), bin); filepath.IsAbs(beside) {
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			bin = beside
		}
	}
	return append([]string{bin, "transcript"}, self[1:]...)
}

// run opens fzf over the surface and returns its exit code once it closes.
func (u *surface) run(print bool) (int, error) {
	self := u.s.childArgv(u.f.Cycle.Server)
	dir, err := os.MkdirTemp("", "tma-pick-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "feed.sock")
	u.feed = strings.Join(func() []string {
		var w []string
		for _, a := range append(append([]string(nil), self...), "feed", sock) {
			w = append(w, jump.ShQuote(a))
		}
		return w
	}(), " ")
	u.mu.Lock()
	u.render()
	u.gen++
	u.shown = u.gen
	if len(u.panes) > 0 {
		u.focused = u.panes[0] // fzf starts on the first row and reports no focus for it
	}
	first := u.frame
	u.problems = u.s.rl.Problems()
	u.shownHeader = u.header()
	u.mu.Unlock()
	args := u.fzfArgs(self)
	if print {
		for _, a := range args {
			fmt.Fprintln(u.s.e.Stdout, a)
		}
		fmt.Fprintln(u.s.e.Stdout, "--")
		_, _ = io.WriteString(u.s.e.Stdout, first)
		return 0, nil
	}
	here := ""
	if exe, err := os.Executable(); err == nil {
		here = filepath.Dir(exe)
	}
	fz, err := pick.Find(u.s.e.Getenv("PATH"), here)
	if err != nil {
		return 0, err
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return 0, err
	}
	go u.serve(ln)
	stop := make(chan struct{})
	nudge := nudges()
	// fzf owns the terminal: what this process would say meanwhile is
	// held (a write would land over fzf's screen) and said once it closed.
	stderr := u.s.e.Stderr
	u.s.e.Stderr = &u.held
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		u.tick(nudge, stop)
	}()
	go u.follow(stop)
	_, code, err := fz.Run(args, u.s.childEnv(), strings.NewReader(first), stderr)
	close(stop)
	u.close()
	ln.Close()
	<-ticked // its cycle writes to the session's stderr
	u.s.e.Stderr = stderr
	_, _ = io.WriteString(stderr, u.held.String())
	return code, err
}

// feed is `tma-pick feed <sock> <verb> [arg]`: fzf's side of the surface.
func feed(e *common.Env, sock, verb string, arg string) int {
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		return common.ExitFail
	}
	defer c.Close()
	cols := e.Getenv("FZF_COLUMNS")
	if cols == "" {
		cols = "0"
	}
	fmt.Fprintf(c, "%s %s %s\n", verb, cols, arg)
	_, _ = io.Copy(e.Stdout, c)
	return common.ExitOK
}

// termCols is the terminal's width (stdin, else stdout), 80 when unknown.
func termCols() int {
	type winsize struct{ row, col, x, y uint16 }
	for _, fd := range []uintptr{0, 1, 2} {
		var ws winsize
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); errno == 0 && ws.col > 0 {
			return int(ws.col)
		}
	}
	return 80
}
