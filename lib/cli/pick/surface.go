package pick

import (
	"bufio"
	"bytes"
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
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	libpick "github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
)

// A surface is the picker or watch: fzf draws, this process drives. fzf
// gets the first frame on stdin; afterwards every `load` event runs
// `tma-pick feed <sock> load`, whose answer chains a refresh of the preview
// and `reload-sync(tma-pick feed <sock> rows)`, which blocks until the next
// frame is due (a one-second tick, a SIGUSR1 nudge, a toggle) and prints it.
// Keys reach this process the same way (execute-silent / transform).
type surface struct {
	s     *sess
	watch bool
	sel   *selector.Selector
	git   *gitinfo.Resolver
	gitAt time.Time
	feed  string // the feed command prefix, shell-quoted

	mu     sync.Mutex
	cond   *sync.Cond
	closed bool
	f      *fleet.Fleet
	origin string // the pane left out of the picker
	client string // the acting client, "" when none
	cols   int
	table  bool
	flat   bool
	order  []string // the picker's stable row order
	gen    int
	shown  int
	frame  string
	panes  []string // the panes of the latest frame, in order
	cur    []string // the panes of the frame fzf shows
	prev   []string // the panes of the frame before it

	seen           map[string]*record.Row // the picker's last row of each pane
	choice, chosen string                 // picker: "pick" or "menu", and the pane
	held           bytes.Buffer
}

func newSurface(s *sess, watch bool, sel *selector.Selector) *surface {
	u := &surface{s: s, watch: watch, sel: sel, git: gitinfo.New(), gitAt: time.Now(), cols: termCols(), seen: map[string]*record.Row{}}
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
		u.f = f
	}
	u.render()
	u.gen++
	u.cond.Broadcast()
}

// render draws the frame from u.f. Caller holds u.mu.
func (u *surface) render() {
	f := u.f
	var rows = scoped(f, u.sel)
	if !u.watch {
		rows = u.stable(rows)
	}
	its := items(f, rows, u.s.l.Config)
	for i := range its {
		if f.Row(its[i].pane) == nil {
			its[i].gone = true
		}
	}
	w := measure(its)
	var b strings.Builder
	u.panes = u.panes[:0]
	emit := func(pane, text string) {
		u.panes = append(u.panes, pane)
		b.WriteString(pane + "\t" + text)
		if u.watch {
			b.WriteByte(0)
		} else {
			b.WriteByte('\n')
		}
	}
	wide := u.cols >= Wide
	line := func(it item) string {
		if u.watch && wide && u.table {
			return tableLine(it, w, u.cols)
		}
		cols := u.cols
		if wide {
			cols = u.cols * 45 / 100 // the list's share beside the preview
		}
		return listLine(it, w, cols)
	}
	if u.watch && wide && !u.flat {
		for _, g := range groups(its) {
			for i, it := range g {
				text := line(it)
				if i == 0 {
					text = paint(dim, "▸ "+groupName(it)) + "\n" + text
				}
				emit(it.pane, text)
			}
		}
	} else {
		for _, it := range its {
			emit(it.pane, line(it))
		}
	}
	u.frame = b.String()
}

// stable keeps the picker's rows where they first appeared (a row does not
// move under the cursor while you aim at it); new agents are appended, and
// a pane that lost its agent stays as a dimmed "gone" row.
func (u *surface) stable(rows []*record.Row) []*record.Row {
	if u.order == nil {
		for _, r := range rows {
			if r.Row.Pane != u.origin {
				u.order = append(u.order, r.Row.Pane)
			}
		}
	} else {
		for _, r := range rows {
			if r.Row.Pane != u.origin && !contains(u.order, r.Row.Pane) {
				u.order = append(u.order, r.Row.Pane)
			}
		}
	}
	by := map[string]*record.Row{}
	for _, r := range rows {
		by[r.Row.Pane] = r
	}
	var out []*record.Row
	for _, p := range u.order {
		if r := by[p]; r != nil {
			out = append(out, r)
		} else {
			out = append(out, u.seen[p]) // rendered as gone
		}
		if r := by[p]; r != nil {
			u.seen[p] = r
		}
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
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-nudge:
		}
		f, err := u.cycle()
		if err != nil {
			u.hold("%v", err)
			continue
		}
		u.publish(f)
	}
}

func (u *surface) hold(format string, a ...any) {
	u.mu.Lock()
	defer u.mu.Unlock()
	msg := fmt.Sprintf(format, a...)
	if !strings.Contains(u.held.String(), msg) {
		u.held.WriteString("tma: " + msg + "\n")
	}
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
	if len(f) < 3 {
		return
	}
	verb, arg := f[0], ""
	cols, _ := strconv.Atoi(f[1])
	pos, _ := strconv.Atoi(f[2])
	if len(f) > 3 {
		arg = f[3]
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
	_, _ = io.WriteString(c, u.handle(verb, arg, pos))
}

// handle answers one request; the answer is what the feed process prints.
func (u *surface) handle(verb, arg string, pos int) string {
	switch verb {
	case "rows":
		u.mu.Lock()
		defer u.mu.Unlock()
		for u.gen <= u.shown && !u.closed {
			u.cond.Wait()
		}
		u.shown = u.gen
		u.prev, u.cur = u.cur, append([]string(nil), u.panes...)
		return u.frame
	case "load":
		u.mu.Lock()
		defer u.mu.Unlock()
		act := ""
		// fzf keeps the cursor's row number across a reload; put it back on
		// the agent it was on (watch has no query, so positions are items).
		if u.watch && pos > 0 && pos <= len(u.prev) {
			want := u.prev[pos-1]
			for i, p := range u.cur {
				if p == want && i+1 != pos {
					act = fmt.Sprintf("pos(%d)+", i+1)
				}
			}
		}
		return act + "refresh-preview+reload-sync(" + u.feed + " rows)"
	case "pick", "menu":
		if !u.watch {
			u.mu.Lock()
			u.choice, u.chosen = verb, arg
			u.mu.Unlock()
			return ""
		}
		if verb == "menu" {
			u.watchMenu(arg)
			return ""
		}
		u.watchJump(arg)
		return ""
	case "key":
		return u.toggle(arg)
	case "layout":
		u.mu.Lock()
		defer u.mu.Unlock()
		return u.layout()
	}
	return ""
}

// previewWindow is the preview beside the list. fzf's own size threshold
// measures the preview, not the terminal, so the 76-column rule is ours:
// the start and resize events ask for the layout (see layout).
const previewWindow = "right,55%,border-left"

// toggle flips a watch body (p: preview/table, g: grouped/flat) and
// answers with the fzf actions that show it.
func (u *surface) toggle(k string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cols < Wide {
		return "" // the narrow body is one flat list: nothing to toggle
	}
	switch k {
	case "p":
		u.table = !u.table
	case "g":
		u.flat = !u.flat
	}
	u.render()
	u.gen++
	u.cond.Broadcast()
	return u.layout() + "+reload-sync(" + u.feed + " rows)+change-header:" + u.header()
}

func (u *surface) layout() string {
	if u.table || u.cols < Wide {
		return "change-preview-window(hidden)"
	}
	return "change-preview-window(" + previewWindow + ")"
}

func (u *surface) header() string {
	if u.watch && u.table && u.cols >= Wide && u.f != nil {
		return tableHeader(measure(items(u.f, scoped(u.f, u.sel), u.s.l.Config)), u.cols)
	}
	if u.watch {
		return "enter jump · a actions · p table · g group · q quit"
	}
	return ""
}

func (u *surface) close() {
	u.mu.Lock()
	u.closed = true
	u.cond.Broadcast()
	u.mu.Unlock()
}

// fzfArgs are the structural flags, passed after the user's
// FZF_DEFAULT_OPTS (which fzf reads itself) so theirs cannot break them.
func (u *surface) fzfArgs(self []string) []string {
	q := func(argv ...string) string {
		var w []string
		for _, a := range argv {
			w = append(w, jump.ShQuote(a))
		}
		return strings.Join(w, " ")
	}
	preview := q(append(self, "preview")...) + " {1}"
	args := []string{
		"--ansi", "--no-multi", "--no-sort", "--no-tac", "--no-tmux", "--no-height", "--no-print-query",
		"--no-expect", "--no-select-1", "--no-exit-0", "--no-read0", "--no-print0", "--no-track",
		"--layout=reverse", "--delimiter=\t", "--with-nth=2..", "--nth=..", "--with-shell=sh -c",
		"--preview=" + preview, "--preview-window=" + strings.TrimSuffix(strings.TrimPrefix(u.layout(), "change-preview-window("), ")"),
		"--bind=load:transform(" + u.feed + " load)",
		"--bind=resize:transform(" + u.feed + " layout)",
	}
	if !u.watch {
		return append(args, "--prompt=tma> ", "--info=inline-right",
			"--bind=enter:execute-silent("+u.feed+" pick {1})+abort",
			"--bind=tab:execute-silent("+u.feed+" menu {1})+abort",
			"--bind=double-click:execute-silent("+u.feed+" pick {1})+abort")
	}
	args = append(args, "--read0", "--multi-line", "--no-input", "--header="+u.header(), "--no-info",
		"--bind=enter:execute-silent("+u.feed+" pick {1})",
		"--bind=double-click:execute-silent("+u.feed+" pick {1})",
		"--bind=a:execute-silent("+u.feed+" menu {1})",
		"--bind=p:transform("+u.feed+" key p)",
		"--bind=g:transform("+u.feed+" key g)",
		"--bind=q:abort")
	return args
}

// run opens fzf over the surface and returns its exit code once it closes.
func (u *surface) run(print bool) (int, error) {
	self := selfArgv(u.f.Cycle.Server)
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
	u.cur = append([]string(nil), u.panes...)
	first := u.frame
	u.mu.Unlock()
	args := u.fzfArgs(self)
	if print {
		for _, a := range args {
			fmt.Fprintln(u.s.e.Stdout, a)
		}
		fmt.Fprintln(u.s.e.Stdout, "--")
		_, _ = io.WriteString(u.s.e.Stdout, strings.ReplaceAll(first, "\x00", "\n"))
		return 0, nil
	}
	here := ""
	if exe, err := os.Executable(); err == nil {
		here = filepath.Dir(exe)
	}
	fz, err := libpick.Find(u.s.e.Getenv("PATH"), here)
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
	go u.tick(nudge, stop)
	_, code, err := fz.Run(args, os.Environ(), strings.NewReader(first), u.s.e.Stderr)
	close(stop)
	u.close()
	ln.Close()
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
	pos := e.Getenv("FZF_POS")
	if pos == "" {
		pos = "0"
	}
	fmt.Fprintf(c, "%s %s %s %s\n", verb, cols, pos, arg)
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
