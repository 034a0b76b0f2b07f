package pickcmd

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tui"
)

// escWait is how long a lone Esc waits for the rest of a sequence.
const escWait = 40 * time.Millisecond

// watchUI is tma watch's terminal surface. One goroutine (run) owns the
// screen and the state; a ticker goroutine runs a cycle every second and
// on SIGUSR1 and hands the fleet over. Cycles, jumps and menus take mu,
// so only one talks to the session's config at a time.
type watchUI struct {
	s      *sess
	sel    *selector.Selector
	term   *tui.Term
	client string // the acting client, "" when none

	mu    sync.Mutex // serialises cycles, jumps and menus (they share s)
	git   *gitinfo.Resolver
	gitAt time.Time

	f     *fleet.Fleet
	cfg   *config.Config
	cols  int
	rows  int
	table bool // p: the table instead of the preview (wide only)
	flat  bool // g: no groups (wide only)
	// transcript: t shows the selected agent's transcript in the preview
	// instead of its screen (wide only; session-local, never saved).
	transcript bool

	lines   []wline
	list    *tui.List
	selPane string // the agent the cursor is on, kept across refreshes
	preview []string
	prevFor string // the pane the preview was captured for
	shown   []string
	jumped  bool // a jump from a temporary session: the session closes

	held *lockedBuffer // notes and errors, printed when the dashboard closes
}

// lockedBuffer is the held notes: written by jumps, menus and the ticker.
// A message already held is not held twice.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if bytes.Contains(l.b.Bytes(), p) {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hold keeps a message.
func (l *lockedBuffer) hold(format string, a ...any) {
	_, _ = l.Write([]byte("tma: " + fmt.Sprintf(format, a...) + "\n"))
}

// update is one cycle's result for the screen.
type update struct {
	f   *fleet.Fleet
	cfg *config.Config
	err error
}

// cycle runs one full cycle with git labels (renewed every 30 s so a
// branch switch shows up) and returns the config it ran with.
func (w *watchUI) cycle() (*fleet.Fleet, *config.Config, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.git == nil || time.Since(w.gitAt) > 30*time.Second {
		w.git, w.gitAt = gitinfo.New(), time.Now()
	}
	f, err := w.s.cycle(w.git)
	if err != nil {
		return nil, nil, err
	}
	return f, w.s.l.Config, nil
}

// ticker runs a cycle every second and on SIGUSR1 (the focus-change
// nudge) until stop closes.
func (w *watchUI) ticker(nudge <-chan os.Signal, stop <-chan struct{}, out chan<- update) {
	defer w.term.Guard()
	refresh(nudge, stop, func() bool {
		f, cfg, err := w.cycle()
		select {
		case out <- update{f, cfg, err}:
			return true
		case <-stop:
			return false
		}
	})
}

// run draws and answers input until a quit; the code is watch's exit code.
func (w *watchUI) run(nudge <-chan os.Signal) int {
	stop := make(chan struct{})
	updates := make(chan update)
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		w.ticker(nudge, stop, updates)
	}()
	// The ticker's cycle reads the session's stderr and config: it ends
	// before the caller hands stderr back and tears the session down.
	defer func() {
		close(stop)
		<-ticked
	}()
	events := w.term.Events(escWait)
	w.cols, w.rows = w.term.Size()
	w.rebuild()
	w.draw(true)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return common.ExitOK // the terminal went away
			}
			if quit := w.handle(ev); quit {
				return common.ExitOK
			}
			// Take whatever else already arrived (a burst of pointer
			// motion) before drawing once.
			for more := true; more; {
				select {
				case ev, ok := <-events:
					if !ok {
						return common.ExitOK
					}
					if w.handle(ev) {
						return common.ExitOK
					}
				default:
					more = false
				}
			}
			if w.jumped {
				return common.ExitOK
			}
		case u := <-updates:
			if u.err != nil {
				w.held.hold("%v", u.err)
				continue
			}
			w.f, w.cfg = u.f, u.cfg
			w.rebuild()
			w.prevFor = "" // the preview is live: capture again
		case <-w.term.Resize:
			w.cols, w.rows = w.term.Size()
			w.rebuild()
			w.draw(true)
			continue
		case <-w.term.Quit:
			return 130
		}
		w.draw(false)
	}
}

func (w *watchUI) wide() bool { return w.cols >= Wide }

func (w *watchUI) geometry() geometry { return watchGeometry(w.cols, w.rows, w.table && w.wide()) }

// rebuild makes the body lines from the latest fleet and puts the cursor
// back on the agent it was on (or where it was, when that agent left).
func (w *watchUI) rebuild() {
	g := w.geometry()
	if w.list == nil {
		w.list = tui.NewList(g.height)
	}
	w.list.SetHeight(g.height)
	var its []item
	if w.f != nil {
		its = items(w.f, scoped(w.f, w.sel), w.cfg)
	}
	w.lines = watchLines(its, w.cols, w.table && w.wide(), w.wide() && !w.flat)
	want := w.list.Cursor
	for i, l := range w.lines {
		if l.pane != "" && l.pane == w.selPane {
			want = i
		}
	}
	sel := make([]bool, len(w.lines))
	for i, l := range w.lines {
		sel[i] = l.pane != ""
	}
	w.list.SetLines(sel, want)
	w.follow()
}

// follow records the agent under the cursor after it moved.
func (w *watchUI) follow() {
	w.selPane = ""
	if c := w.list.Cursor; c >= 0 && c < len(w.lines) {
		w.selPane = w.lines[c].pane
	}
}

// handle answers one key or mouse report; true quits.
func (w *watchUI) handle(ev tui.Event) bool {
	if ev.IsMouse() {
		w.mouse(ev)
		return false
	}
	w.list.Key() // any key drops the hover
	switch ev.Name() {
	case "q", "esc", "ctrl-c":
		return true
	case "enter":
		w.jump()
	case "a":
		w.menu()
	case "up", "k", "ctrl-p":
		w.list.Move(-1)
	case "down", "j", "ctrl-n":
		w.list.Move(1)
	case "pgup":
		w.list.Page(-1)
	case "pgdn":
		w.list.Page(1)
	case "home":
		w.list.First()
	case "end":
		w.list.Last()
	case "p":
		if w.wide() {
			w.table = !w.table
			w.rebuild()
		}
	case "g":
		if w.wide() {
			w.flat = !w.flat
			w.rebuild()
		}
	case "t":
		if w.wide() {
			w.transcript = !w.transcript
			w.prevFor = "" // show the other one now
		}
	case "ctrl-l":
		w.shown = nil
	}
	w.follow()
	return false
}

// mouse: the pointer underlines the agent under it, a left press selects
// (and on the selected agent jumps), the wheel moves three rows. Presses
// outside the list (the column header, the preview, the hint line) and on
// group headers do nothing.
func (w *watchUI) mouse(ev tui.Event) {
	g := w.geometry()
	row := ev.Y - g.top
	inList := ev.X >= 0 && ev.X < g.listW && row >= 0 && row < g.height
	if !inList {
		row = -1
	}
	switch ev.Mouse {
	case tui.MouseMotion:
		w.list.Pointer(row)
	case tui.MousePress:
		if ev.Button != tui.ButtonLeft || !inList {
			w.list.Pointer(row)
			return
		}
		if w.list.Click(row) {
			w.jump()
		}
		w.follow()
	case tui.WheelUp, tui.WheelDown:
		if inList {
			w.list.Pointer(row)
			if ev.Mouse == tui.WheelUp {
				w.list.Wheel(-1)
			} else {
				w.list.Wheel(1)
			}
			w.follow()
		}
	}
}

// jump is Enter (and a click on the selected row): one cycle, then the
// jump of the acting client (clearing attention). The dashboard stays; a
// temporary session closes once the loop ends.
func (w *watchUI) jump() {
	pane := w.selPane
	if !validPane(pane) {
		return
	}
	f, cfg, err := w.cycle()
	if err != nil {
		w.held.hold("%v", err)
		return
	}
	w.mu.Lock()
	w.s.jump(f, jump.Pane, pane, nil)
	w.mu.Unlock()
	w.f, w.cfg = f, cfg
	w.rebuild()
	w.prevFor = ""
	if w.s.temporary != "" {
		w.jumped = true
	}
}

// menu is `a`: the action menu for the highlighted pane, drawn by tmux
// over the dashboard, which keeps refreshing behind it.
func (w *watchUI) menu() {
	pane := w.selPane
	if !validPane(pane) || w.f == nil {
		return
	}
	done, err := w.s.actMenu(w.f.Cycle.Server, w.client, pane, "watch", w.held)
	if err != nil {
		w.held.hold("tma act: %v", err)
		return
	}
	go func() {
		defer w.term.Guard()
		_ = <-done // act reports its own failures on stderr (held)
	}()
}

// view is the frame's input; it captures the preview when the selected
// pane changed or a new cycle arrived.
func (w *watchUI) view() *watchView {
	g := w.geometry()
	if g.preview {
		if w.selPane == "" {
			w.preview, w.prevFor = nil, ""
		} else if w.selPane != w.prevFor {
			w.mu.Lock()
			if w.transcript {
				w.preview = previewLines(w.transcriptOf(w.selPane, g.height))
			} else {
				w.preview = previewLines(w.s.capture(w.selPane))
			}
			w.mu.Unlock()
			w.prevFor = w.selPane
		}
	}
	v := &watchView{cols: w.cols, rows: w.rows, table: w.table && w.wide(), grouped: w.wide() && !w.flat, transcript: w.transcript,
		lines: w.lines, list: w.list, preview: w.preview, empty: "no agents"}
	if w.sel != nil {
		v.empty = "no agents in scope"
	}
	if v.table && w.f != nil {
		v.header = tableHeader(measure(items(w.f, scoped(w.f, w.sel), w.cfg)), w.cols)
	}
	return v
}

// draw writes the rows that changed since the last frame (all of them
// when full).
func (w *watchUI) draw(full bool) {
	rows := w.view().frame()
	var b strings.Builder
	if full || len(w.shown) != len(rows) {
		b.WriteString("\x1b[H\x1b[2J")
		w.shown = nil
	}
	for i, r := range rows {
		if i < len(w.shown) && w.shown[i] == r {
			continue
		}
		b.WriteString("\x1b[" + strconv.Itoa(i+1) + ";1H" + r)
	}
	w.shown = rows
	if b.Len() > 0 {
		_, _ = w.term.Write([]byte(b.String()))
	}
}

// transcriptOf is the pane's last events as `tma transcript` prints them
// (its refusal too), as many as the preview has rows: tma-transcript is a
// binary of its own, so watch runs it rather than link its SQLite driver.
func (w *watchUI) transcriptOf(pane string, rows int) string {
	server := ""
	if w.f != nil {
		server = w.f.Cycle.Server
	}
	argv := append(transcriptArgv(selfArgv(server)), "--last", strconv.Itoa(max(1, min(rows, 1000))), "--pane", pane)
	return pick.Output(argv, os.Environ(), 5*time.Second)
}
