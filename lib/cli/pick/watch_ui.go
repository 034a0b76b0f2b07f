package pickcmd

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tui"
	"github.com/tmaproject/tma/lib/watch"
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

	f      *fleet.Fleet
	cfg    *config.Config
	m      *watch.Model // rows, selection, toggles, preview and frame
	jumped bool         // a jump from a temporary session: the session closes

	held *lockedBuffer // notes and errors, printed when the dashboard closes

	remotes *remote.Poller    // nil with no [[remote]]
	servers map[string]string // a remote row's key -> its host's tmux server

	// A blocked remote row's preview is its card, asked off the screen's
	// goroutine (the answer may wait on the remote) and kept per key
	// while the row's blocker is the same one (state, detail, since), so
	// the live redraw does not ask the host every second.
	cards  chan cardText
	carded map[string]cardText
	asking map[string]bool
}

// cardText is one answered card preview.
type cardText struct{ key, stamp, text string }

func cardStamp(r *record.AgentRow) string {
	s := r.State
	if r.Detail != nil {
		s += "/" + *r.Detail
	}
	if r.SinceMS != nil {
		s += "@" + strconv.FormatInt(*r.SinceMS, 10)
	}
	return s
}

// remoteCard is the preview of remote row key: its card when it is
// blocked (the last one while a new one is asked for), else the note.
func (w *watchUI) remoteCard(key, note string) string {
	row, timeout := blockedRemote(w.remotes, key)
	if row == nil {
		return note
	}
	stamp := cardStamp(row)
	got, ok := w.carded[key]
	if ok && got.stamp == stamp {
		return got.text
	}
	if w.cards == nil {
		w.cards, w.carded, w.asking = make(chan cardText, 16), map[string]cardText{}, map[string]bool{}
	}
	if !w.asking[key] {
		w.asking[key] = true
		go func() {
			ct := cardText{key, stamp, askCard(w.remotes, key, timeout, note)}
			select {
			case w.cards <- ct:
			default: // the screen is gone or swamped: the next draw asks again
			}
		}()
	}
	if ok {
		return got.text
	}
	return note + "(asking " + key + " for its card…)\n"
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
	f        *fleet.Fleet
	cfg      *config.Config
	problems []string // the files the cycle's load left out (Reloader.Problems)
	err      error
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

// problems are the files the session's load leaves out
// (Reloader.Problems): a config kept-old, every user manifest skipped.
func (w *watchUI) problems() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.s.rl.Problems()
}

// ticker runs a cycle every second and on SIGUSR1 (the focus-change
// nudge) until stop closes.
func (w *watchUI) ticker(nudge <-chan os.Signal, stop <-chan struct{}, out chan<- update) {
	defer w.term.Guard()
	refresh(nudge, stop, func() bool {
		f, cfg, err := w.cycle()
		select {
		case out <- update{f, cfg, w.problems(), err}:
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
	w.m.Resize(w.term.Size())
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
		case <-w.remotes.Changed():
			w.rebuild() // a remote answered, or failed, on its own clock
		case ct := <-w.cards:
			delete(w.asking, ct.key)
			w.carded[ct.key] = ct
			if w.m.Selected() == ct.key {
				w.m.SetPreview(ct.key, ct.text)
			}
		case u := <-updates:
			if u.err != nil {
				w.held.hold("%v", u.err)
				continue
			}
			w.f, w.cfg = u.f, u.cfg
			w.m.SetProblems(u.problems, w.s.e.Getenv("HOME"))
			w.rebuild() // the preview is live: captured again
		case <-w.term.Resize:
			w.m.Resize(w.term.Size())
			w.draw(true)
			continue
		case <-w.term.Quit:
			return 130
		}
		w.draw(false)
	}
}

// rebuild hands the latest fleet's scoped rows to the model, and after
// them each remote's (host-labelled, in its pick order) and the header of
// each remote that has none.
func (w *watchUI) rebuild() {
	var its []watch.Item
	if w.f != nil {
		its = watch.Items(w.f, scoped(w.f, w.sel), w.cfg)
		if w.remotes != nil {
			ents, heads, _ := remoteEntries(w.remotes.States(), w.sel)
			w.servers = map[string]string{}
			for _, e := range ents {
				its = append(its, watch.RemoteItems(e.host, []*record.Row{e.row}, w.f.Cycle.NowMS, w.cfg)...)
				w.servers[e.key] = e.row.Row.Server
			}
			watch.Label(its, common.Host())
			its = append(its, heads...)
		}
	}
	w.m.SetRows(its)
}

// handle answers one key or mouse report and runs the action it asks
// for; true quits.
func (w *watchUI) handle(ev tui.Event) bool {
	var act watch.Action
	if ev.IsMouse() {
		act = w.m.Mouse(ev)
	} else {
		act = w.m.Key(ev.Name())
	}
	switch act {
	case watch.Quit:
		return true
	case watch.Jump:
		w.jump()
	case watch.Menu:
		w.menu()
	}
	return false
}

// jump is Enter (and a click on the selected row): one cycle, then the
// jump of the acting client (clearing attention). The dashboard stays; a
// temporary session closes once the loop ends.
func (w *watchUI) jump() {
	pane := w.m.Selected()
	if host, p := watch.SplitKey(pane); host != "" && validPane(p) {
		w.jumpRemote(host, p, w.servers[pane])
		return
	}
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
	if w.s.temporary != "" {
		w.jumped = true
	}
}

// jumpRemote is Enter on a remote row: the window attached to it over
// ssh, opened or reused. The dashboard stays, as after a local jump.
func (w *watchUI) jumpRemote(host, pane, server string) {
	f, _, err := w.cycle()
	if err != nil {
		w.held.hold("%v", err)
		return
	}
	w.mu.Lock()
	code := w.s.openRemote(f, host, server, pane)
	w.mu.Unlock()
	if code == common.ExitOK && w.s.temporary != "" {
		w.jumped = true
	}
}

// menu is `a`: the action menu for the highlighted pane, drawn by tmux
// over the dashboard, which keeps refreshing behind it.
func (w *watchUI) menu() {
	pane := w.m.Selected()
	if host, p := watch.SplitKey(pane); host != "" {
		w.held.hold("the action menu is local; answer %s with `tma act <action> --host %s --pane %s`", pane, host, p)
		return
	}
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

// draw captures the preview when the model asks for one (the selected
// pane changed, a new cycle arrived, t was pressed) and writes the rows
// that changed since the last frame (all of them when full).
func (w *watchUI) draw(full bool) {
	if pane, rows, ok := w.m.WantPreview(); ok {
		w.mu.Lock()
		if note, ok := remotePreview(pane); ok {
			w.m.SetPreview(pane, w.remoteCard(pane, note))
		} else if w.m.Transcript {
			w.m.SetPreview(pane, w.transcriptOf(pane, rows))
		} else {
			w.m.SetPreview(pane, w.s.capture(pane))
		}
		w.mu.Unlock()
	}
	if b := w.m.Paint(full); b != "" {
		_, _ = w.term.Write([]byte(b))
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
	argv := append(transcriptArgv(w.s.childArgv(server)), "--last", strconv.Itoa(max(1, min(rows, 1000))), "--pane", pane)
	return pick.Output(argv, w.s.childEnv(), 5*time.Second)
}
