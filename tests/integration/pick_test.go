package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// withBins gives the panes the tests open the test binaries and HOME.
func withBins(t *testing.T, e *env) {
	t.Helper()
	// The panes the tests open run tma from the server's environment.
	e.s.MustRun("set-environment", "-g", "PATH", binDir+":"+os.Getenv("PATH"))
	e.s.MustRun("set-environment", "-g", "HOME", e.home)
}

// withFzf puts an fzf beside the test binaries (as make install does); the
// test fails when make deps has not provided one. Only the picker runs fzf.
func withFzf(t *testing.T, e *env) {
	t.Helper()
	src := testkit.Need(t, "fzf")
	dst := filepath.Join(binDir, "fzf")
	if _, err := os.Stat(dst); err != nil {
		if err := os.Symlink(src, dst); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	withBins(t, e)
	e.s.MustRun("set-environment", "-g", "FZF_DEFAULT_OPTS", "--height=40% --layout=default --multi --exit-0 --bind=enter:abort")
}

// tmaWindow opens a window running a tma command line in the test's PATH
// and HOME (a command client's PATH wins over the server's for new windows).
func (e *env) tmaWindow(cmdline string) string {
	e.t.Helper()
	return e.window("s", "export PATH='"+binDir+"':\"$PATH\" HOME='"+e.home+"'; "+cmdline)
}

func (e *env) screen(pane string) string {
	out, _ := e.s.Run("capture-pane", "-p", "-t", pane)
	return out
}

func (e *env) waitScreen(pane, what string, cond func(string) bool) string {
	e.t.Helper()
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = e.screen(pane); cond(got) {
			return got
		}
	}
	e.t.Fatalf("timed out waiting for %s; last screen:\n%s", what, got)
	return ""
}

// lineOf is the index of the first screen line containing s (-1 if none).
func lineOf(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// TestPickerInAPane runs the picker in a pane: rows in attention order, the
// preview of the highlighted agent, arrows and Enter jump the client.
func TestPickerInAPane(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	idle := e.s.StartAgent("claude", claudeIdle)
	work := e.s.StartAgent("claude", claudeWorking)
	blocked := e.s.StartAgent("claude", claudeBlocked)
	e.expect(idle.Pane, "idle")
	loc := func(p string) string {
		return strings.TrimSpace(e.s.MustRun("display", "-p", "-t", p, "#{session_name}:#{window_index}.#{pane_index}"))
	}
	picker := e.tmaWindow("tma; echo PICKER-EXIT $?; sleep 600")
	c := e.attach(picker)
	scr := e.waitScreen(picker, "rows drawn", func(s string) bool {
		return strings.Contains(s, loc(idle.Pane)) && strings.Contains(s, "Do you want to proceed")
	})
	b, w, i := lineOf(scr, loc(blocked.Pane)), lineOf(scr, loc(work.Pane)), lineOf(scr, loc(idle.Pane))
	if !(b >= 0 && b < w && w < i) {
		t.Errorf("rows not in attention order (blocked %d, working %d, idle %d):\n%s", b, w, i, scr)
	}
	if strings.Contains(scr, loc(picker)) {
		t.Errorf("the picker's own pane is listed:\n%s", scr)
	}
	// The user's FZF_DEFAULT_OPTS (--bind=enter:abort, --multi, ...) do not
	// break Enter: the structural flags come after theirs.
	e.s.MustRun("send-keys", "-t", picker, "Down", "Down")
	time.Sleep(300 * time.Millisecond)
	e.s.MustRun("send-keys", "-t", picker, "Enter")
	c.waitPane(idle.Pane, "Enter on the third row")
	e.waitScreen(picker, "the picker closed quietly", func(s string) bool { return strings.Contains(s, "PICKER-EXIT 0") })
}

// TestPickerEscAndQuery: every printable key types; Esc exits 0.
func TestPickerEscAndQuery(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	e.s.StartAgent("claude", claudeBlocked)
	picker := e.tmaWindow("tma; echo PICKER-EXIT $?; sleep 600")
	e.attach(picker)
	e.waitScreen(picker, "rows drawn", func(s string) bool { return strings.Contains(s, "claude") })
	e.s.MustRun("send-keys", "-t", picker, "-l", "qpgj1")
	e.waitScreen(picker, "the query typed", func(s string) bool { return strings.Contains(s, "tma> qpgj1") })
	e.s.MustRun("send-keys", "-t", picker, "Escape")
	e.waitScreen(picker, "Esc exits 0", func(s string) bool { return strings.Contains(s, "PICKER-EXIT 0") })
}

// TestPickerInPopup opens the picker with the installed prefix-a binding:
// it resolves the client that opened the popup and leaves out its pane.
func TestPickerInPopup(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	here := e.s.StartAgent("claude", claudeBlocked)
	work := e.s.StartAgent("claude", claudeWorking)
	e.ls()
	if _, errs, code := e.tma("install-keys", "--yes", "--no-daemon"); code != 0 {
		t.Fatalf("install-keys: %s", errs)
	}
	e.s.MustRun("source-file", filepath.Join(e.home, ".config", "tma", "tmux.conf"))
	win := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", here.Pane, "#{window_index}"))
	c := e.attach("s:" + win)
	c.waitPane(here.Pane, "attached")
	c.keys("\x02a")
	e.s.WaitFor(func() bool { return c.seen("tma>") }, "the picker drawn in the popup")
	time.Sleep(500 * time.Millisecond)
	c.keys("\r")
	// The blocked pane it was opened from is left out: the first row is the
	// working agent.
	c.waitPane(work.Pane, "Enter in the popup")
}

// TestWatch runs the dashboard in a window: grouped rows with the preview,
// Enter jumps and stays open, the pid is advertised, q quits.
func TestWatch(t *testing.T) {
	e := newEnv(t, "")
	withBins(t, e)
	blocked := e.s.StartAgent("claude", claudeBlocked)
	idle := e.s.StartAgent("claude", claudeIdle)
	e.expect(idle.Pane, "idle")
	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	c := e.attach(watch)
	scr := e.waitScreen(watch, "rows drawn", func(s string) bool {
		return strings.Contains(s, "▸ ") && strings.Contains(s, "Do you want to proceed")
	})
	if lineOf(scr, "⚑") > lineOf(scr, "○") {
		t.Errorf("blocked row not first:\n%s", scr)
	}
	if pid := e.s.Option(watch, "@tma_watch_pid"); pid == "" {
		t.Error("no @tma_watch_pid on the watch pane")
	}
	e.s.MustRun("send-keys", "-t", watch, "Enter")
	c.waitPane(blocked.Pane, "Enter in watch")
	if got := e.s.Option(blocked.Pane, "@agent_attention"); got != "" {
		t.Errorf("Enter left attention: %q", got)
	}
	// Still open, and following state within a couple of seconds.
	blocked2 := e.s.StartAgent("claude", claudeBlocked)
	loc := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", blocked2.Pane, "#{session_name}:#{window_index}.#{pane_index}"))
	e.waitScreen(watch, "a new agent shows up", func(s string) bool { return strings.Contains(s, loc) })
	// p swaps the preview for the table, g flattens.
	e.s.MustRun("send-keys", "-t", watch, "p")
	e.waitScreen(watch, "the table", func(s string) bool {
		return strings.Contains(s, "blocked/permission") && !strings.Contains(s, "Do you want to proceed")
	})
	e.s.MustRun("send-keys", "-t", watch, "g")
	e.waitScreen(watch, "flat", func(s string) bool { return !strings.Contains(s, "▸ ") })
	e.s.MustRun("send-keys", "-t", watch, "q")
	e.waitScreen(watch, "q quits", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })
	if pid := e.s.Option(watch, "@tma_watch_pid"); pid != "" {
		t.Errorf("@tma_watch_pid left behind: %s", pid)
	}
}

// TestWatchTemporarySession is the prefix-G placement: a one-use session,
// the origin on the trail, gone again on quit.
func TestWatchTemporarySession(t *testing.T) {
	e := newEnv(t, "")
	withBins(t, e)
	a := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	home := e.window("s", "sleep 600")
	c := e.attach(home)
	e.mustTma("watch", "--temporary-session", "--table", "--client", c.name)
	var sess string
	e.s.WaitFor(func() bool {
		out, _ := e.s.Run("display", "-p", "-c", c.name, "#{session_name}")
		sess = strings.TrimSpace(out)
		return strings.HasPrefix(sess, "tma-watch-")
	}, "client in the temporary session")
	if got := e.trail(c.name); got != home {
		t.Errorf("origin not on the trail: %q", got)
	}
	wp := c.pane()
	e.waitScreen(wp, "table drawn", func(s string) bool { return strings.Contains(s, "blocked/permission") })
	e.s.MustRun("send-keys", "-t", wp, "q")
	c.waitPane(home, "quit returns to the origin")
	e.s.WaitFor(func() bool { _, err := e.s.Run("has-session", "-t", "="+sess); return err != nil }, "temporary session destroyed")

	// Enter jumps and closes the session too.
	e.mustTma("watch", "--temporary-session", "--client", c.name)
	e.s.WaitFor(func() bool { return strings.HasPrefix(c.pane(), "%") && c.pane() != home }, "in the temporary session again")
	wp = c.pane()
	e.waitScreen(wp, "rows drawn", func(s string) bool { return strings.Contains(s, "claude") })
	e.s.MustRun("send-keys", "-t", wp, "Enter")
	c.waitPane(a.Pane, "Enter from the temporary session")
	e.mustTma("jump", "--back", "--client", c.name)
	c.waitPane(home, "--back to where G was pressed")
}

// screenE is the pane's screen with its attributes (capture-pane -e).
func (e *env) screenE(pane string) string {
	out, _ := e.s.Run("capture-pane", "-p", "-e", "-t", pane)
	return out
}

// listPart is a watch screen line left of the preview border.
func listPart(line string) string {
	if i := strings.Index(line, "│"); i >= 0 {
		return line[:i]
	}
	return line
}

// marked lists the watch list rows (screen line indexes) carrying attr.
func (e *env) marked(pane, attr string) []int {
	var out []int
	for i, l := range strings.Split(e.screenE(pane), "\n") {
		if testkit.SGRAttrs(listPart(l))[attr] {
			out = append(out, i)
		}
	}
	return out
}

// waitMarked waits until exactly the rows want carry attr.
func (e *env) waitMarked(pane, attr string, want []int, what string) {
	e.t.Helper()
	var got []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = e.marked(pane, attr); fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
	}
	e.t.Fatalf("%s: rows with \\e[%sm %v, want %v; screen:\n%s", what, attr, got, want, strings.ReplaceAll(e.screenE(pane), "\x1b", "\\e"))
}

// pointer sends a literal SGR mouse report into the pane, as tmux does
// for a pane that turned mouse reporting on: b is the button byte (0 left
// press, 35 motion, 64/65 wheel), x and y 0-based.
func (e *env) pointer(pane string, b, x, y int, release bool) {
	e.t.Helper()
	end := "M"
	if release {
		end = "m"
	}
	e.s.MustRun("send-keys", "-t", pane, "-l", fmt.Sprintf("\x1b[<%d;%d;%d%s", b, x+1, y+1, end))
}

func (e *env) click(pane string, x, y int) {
	e.t.Helper()
	e.pointer(pane, 0, x, y, false)
	e.pointer(pane, 0, x, y, true)
}

func (e *env) locator(pane string) string {
	return strings.TrimSpace(e.s.MustRun("display", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
}

// TestWatchMouse: watch turns on SGR any-motion reporting; motion
// underlines the agent under the pointer, a key drops it, the next motion
// brings it back; hover and clicks on a group header do nothing; a click
// selects and a second click on the selected row jumps the client.
func TestWatchMouse(t *testing.T) {
	e := newEnv(t, "")
	withBins(t, e)
	blocked := e.s.StartAgent("claude", claudeBlocked)
	idle := e.s.StartAgent("claude", claudeIdle)
	e.expect(idle.Pane, "idle")
	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	c := e.attach(watch)
	scr := e.waitScreen(watch, "rows drawn", func(s string) bool {
		return strings.Contains(s, "▸ ") && strings.Contains(s, e.locator(idle.Pane))
	})
	if got := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", watch, "#{mouse_any_flag} #{mouse_all_flag} #{mouse_sgr_flag}")); got != "1 1 1" {
		t.Errorf("mouse reporting while watch runs (any all sgr): %q, want 1 1 1", got)
	}
	header, yb, yi := lineOf(scr, "▸ "), lineOf(scr, e.locator(blocked.Pane)), lineOf(scr, e.locator(idle.Pane))
	if !(header >= 0 && header < yb && yb < yi) {
		t.Fatalf("layout: header %d, blocked %d, idle %d:\n%s", header, yb, yi, scr)
	}
	e.waitMarked(watch, "7", []int{yb}, "the first agent selected")
	e.waitMarked(watch, "4", nil, "no hover before the pointer moves")

	e.pointer(watch, 35, 3, yi, false)
	e.waitMarked(watch, "4", []int{yi}, "motion underlines the row under the pointer")
	e.waitMarked(watch, "7", []int{yb}, "hover leaves the selection alone")
	e.s.MustRun("send-keys", "-t", watch, "x")
	e.waitMarked(watch, "4", nil, "a key drops the hover")
	e.pointer(watch, 35, 4, yi, false)
	e.waitMarked(watch, "4", []int{yi}, "the next motion brings it back")
	e.pointer(watch, 35, 3, header, false)
	e.waitMarked(watch, "4", nil, "hovering a group header underlines nothing")

	e.click(watch, 3, header)
	time.Sleep(300 * time.Millisecond)
	e.waitMarked(watch, "7", []int{yb}, "a click on a group header selects nothing")
	e.click(watch, 3, yi)
	e.waitMarked(watch, "7", []int{yi}, "a click selects")
	if p := c.pane(); p != watch {
		t.Fatalf("the first click moved the client to %s", p)
	}
	e.click(watch, 3, yi)
	c.waitPane(idle.Pane, "a click on the selected row jumps")
	if got := e.screen(watch); strings.Contains(got, "WATCH-EXIT") {
		t.Errorf("watch closed after the jump:\n%s", got)
	}
	// Presses on the key-hint line do nothing either.
	e.s.MustRun("select-window", "-t", watch)
	c.waitPane(watch, "back on the watch window")
	hint := lineOf(e.screen(watch), "enter jump")
	e.click(watch, 1, hint)
	e.click(watch, 1, hint)
	time.Sleep(300 * time.Millisecond)
	e.waitMarked(watch, "7", []int{yi}, "presses on the hint line")
	if p := c.pane(); p != watch {
		t.Errorf("a press on the hint line moved the client to %s", p)
	}
	// Through the attached client's own terminal, as a real mouse arrives:
	// tmux routes the report to the pane that asked for it.
	c.keys(fmt.Sprintf("\x1b[<35;4;%dM", yb+1))
	e.waitMarked(watch, "4", []int{yb}, "motion through the client")
	press := fmt.Sprintf("\x1b[<0;4;%dM\x1b[<0;4;%dm", yb+1, yb+1)
	c.keys(press)
	e.waitMarked(watch, "7", []int{yb}, "a click through the client selects")
	c.keys(press)
	c.waitPane(blocked.Pane, "a second click through the client jumps")
}

// TestWatchWheelNudgeQuit: the wheel moves the selection three rows,
// clamped; SIGUSR1 refreshes at once; q restores the terminal (the shell
// is back, mouse reporting off).
func TestWatchWheelNudgeQuit(t *testing.T) {
	e := newEnv(t, "")
	withBins(t, e)
	var agents []string
	for i := 0; i < 5; i++ {
		agents = append(agents, e.s.StartAgent("claude", claudeIdle).Pane)
	}
	e.expect(agents[4], "idle")
	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	e.waitScreen(watch, "rows drawn", func(s string) bool { return strings.Contains(s, e.locator(agents[4])) })
	e.s.MustRun("send-keys", "-t", watch, "g") // flat: one agent per line from the top
	scr := e.waitScreen(watch, "flat", func(s string) bool { return !strings.Contains(s, "▸ ") })
	top := lineOf(scr, "claude")
	if top != 0 {
		t.Fatalf("first row on line %d:\n%s", top, scr)
	}
	e.waitMarked(watch, "7", []int{0}, "the first agent selected")
	e.pointer(watch, 65, 2, 1, false)
	e.waitMarked(watch, "7", []int{3}, "wheel down moves three rows")
	e.pointer(watch, 65, 2, 1, false)
	e.waitMarked(watch, "7", []int{4}, "wheel down stops at the last row")
	e.pointer(watch, 64, 2, 1, false)
	e.waitMarked(watch, "7", []int{1}, "wheel up moves three rows")
	e.pointer(watch, 64, 2, 1, false)
	e.waitMarked(watch, "7", []int{0}, "wheel up stops at the first row")

	// SIGUSR1 refreshes at once: right after a tick (the ages just
	// changed), a new title shows up well before the next one is due.
	pid, err := strconv.Atoi(e.s.Option(watch, "@tma_watch_pid"))
	if err != nil {
		t.Fatalf("@tma_watch_pid: %v", err)
	}
	nudged := false
	for attempt := 1; attempt <= 3 && !nudged; attempt++ {
		before := e.screen(watch)
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && e.screen(watch) == before; time.Sleep(10 * time.Millisecond) {
		}
		ticked := time.Now()
		title := "NUDGED" + strconv.Itoa(attempt)
		e.s.MustRun("select-pane", "-t", agents[0], "-T", title)
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		for time.Since(ticked) < 600*time.Millisecond {
			if strings.Contains(e.screen(watch), title) {
				nudged = true
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !nudged {
		t.Errorf("SIGUSR1 did not refresh before the next tick")
	}

	e.s.MustRun("send-keys", "-t", watch, "q")
	e.waitScreen(watch, "q quits", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })
	if got := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", watch, "#{mouse_any_flag} #{mouse_sgr_flag} #{alternate_on}")); got != "0 0 0" {
		t.Errorf("after quit (mouse any, sgr, alternate screen): %q, want 0 0 0", got)
	}
	if pid := e.s.Option(watch, "@tma_watch_pid"); pid != "" {
		t.Errorf("@tma_watch_pid left behind: %s", pid)
	}
}

// TestPickerMouse: what fzf can do of the mouse contract. The wheel moves
// three rows; a click selects, and a click on the row already selected
// (later than a double-click) jumps.
func TestPickerMouse(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	byLoc := map[string]string{}
	var last string
	for i := 0; i < 5; i++ {
		last = e.s.StartAgent("claude", claudeIdle).Pane
		byLoc[e.locator(last)] = last
	}
	e.expect(last, "idle")
	picker := e.tmaWindow("tma; echo PICKER-EXIT $?; sleep 600")
	c := e.attach(picker)
	scr := e.waitScreen(picker, "rows drawn", func(s string) bool { return strings.Count(s, "claude") >= 5 })
	// rows are the screen lines holding an agent, in order, as panes.
	rows := func(scr string) (lines []int, panes []string) {
		for i, l := range strings.Split(scr, "\n") {
			for loc, p := range byLoc {
				if strings.Contains(listPart(l), loc+" ") {
					lines, panes = append(lines, i), append(panes, p)
				}
			}
		}
		return
	}
	lines, panes := rows(scr)
	if len(lines) != 5 {
		t.Fatalf("rows %v:\n%s", lines, scr)
	}
	// fzf's cursor is its reversed/bold pointer row; the wheel moves it.
	e.pointer(picker, 65, 2, lines[1], false)
	time.Sleep(300 * time.Millisecond)
	e.s.MustRun("send-keys", "-t", picker, "Enter")
	c.waitPane(panes[3], "wheel down moved three rows, Enter jumps there")
	e.waitScreen(picker, "closed", func(s string) bool { return strings.Contains(s, "PICKER-EXIT 0") })

	// Again: a click selects (and does not jump), a click on it later jumps.
	e.s.MustRun("respawn-pane", "-k", "-t", picker, "sh", "-c", "export PATH='"+binDir+"':\"$PATH\" HOME='"+e.home+"'; tma; echo PICKER-EXIT $?; sleep 600")
	e.s.MustRun("select-window", "-t", picker)
	c.waitPane(picker, "back on the picker")
	scr = e.waitScreen(picker, "rows drawn again", func(s string) bool { return strings.Count(s, "claude") >= 5 })
	lines, panes = rows(scr)
	e.click(picker, 4, lines[2])
	time.Sleep(800 * time.Millisecond) // past fzf's double-click window
	if p := c.pane(); p != picker {
		t.Fatalf("the first click jumped to %s", p)
	}
	e.click(picker, 4, lines[2])
	c.waitPane(panes[2], "a click on the selected row jumps")
}

// TestSurfacesOpenTheActMenu: watch's a and the picker's Tab open the action
// menu of the highlighted agent (not of the pane the surface runs in) on the
// acting client, and an entry picked there fires into that agent.
func TestSurfacesOpenTheActMenu(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")

	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	c := e.attach(watch)
	e.waitScreen(watch, "rows drawn", func(s string) bool { return strings.Contains(s, "Do you want to proceed") })
	e.s.MustRun("send-keys", "-t", watch, "a")
	e.s.WaitFor(func() bool { return c.seen("Approve the pending request") }, "watch's a: the act menu drawn")
	c.keys("a") // approve's quick-select key in the menu
	e.waitSent(in, "1")
	if c.pane() != watch {
		t.Errorf("the menu moved the client to %s", c.pane())
	}
	e.s.MustRun("send-keys", "-t", watch, "q")
	e.waitScreen(watch, "q quits", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })

	// The agent asks again; the picker's Tab answers it the same way. (The
	// fake agent shows no work after the approve: blocked -> idle on screen
	// is not done, so the pane reads plain idle.)
	a.Paint(claudeIdle)
	e.expect(a.Pane, "idle")
	a.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	picker := e.tmaWindow("tma; echo PICKER-EXIT $?; sleep 600")
	e.s.MustRun("switch-client", "-c", c.name, "-t", picker)
	c.waitPane(picker, "the client on the picker")
	e.waitScreen(picker, "rows drawn", func(s string) bool { return strings.Contains(s, "tma>") && strings.Contains(s, "claude") })
	menus := func() int {
		b, _ := os.ReadFile(c.typescript)
		return strings.Count(string(b), "Deny the pending request")
	}
	n := menus()
	e.s.MustRun("send-keys", "-t", picker, "Tab")
	e.waitScreen(picker, "Tab closes the picker quietly", func(s string) bool { return strings.Contains(s, "PICKER-EXIT 0") })
	e.s.WaitFor(func() bool { return menus() > n }, "the picker's Tab: the act menu drawn")
	c.keys("d")
	e.waitSent(in, "1\x1b")
}

// TestPreviewShowsTheBottom: the picker's preview command prints the
// bottom of a tall pane, the rows fzf's preview has room for
// (FZF_PREVIEW_LINES), with the blank rows under the prompt dropped: a
// 50-row pane shown from its top put the prompt below the fold.
func TestPreviewShowsTheBottom(t *testing.T) {
	e := newEnv(t, "")
	script := filepath.Join(t.TempDir(), "paint")
	// 40 rows of output, the prompt, then blank rows to the pane's bottom.
	body := "i=1; while [ $i -le 40 ]; do echo \"output $i\"; i=$((i+1)); done; printf '\\033[1m> Allow this command? (y/n)\\033[0m\\n'; exec sleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	pane := strings.TrimSpace(e.s.MustRun("new-window", "-P", "-F", "#{pane_id}", "-t", "s:", script))
	e.s.MustRun("resize-window", "-t", "s:", "-x", "100", "-y", "50")
	e.s.WaitFor(func() bool {
		return strings.Contains(e.s.MustRun("capture-pane", "-p", "-t", pane), "Allow this command")
	}, "the prompt painted")

	preview := func(rows string) string {
		cmd := exec.Command(filepath.Join(binDir, "tma-pick"), "-L", e.s.Name, "preview", pane)
		cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "FZF_PREVIEW_LINES="+rows)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tma-pick preview: %v\n%s", err, out)
		}
		return string(out)
	}
	out := preview("12")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 12 {
		t.Errorf("preview printed %d rows for a 12-row preview:\n%s", len(lines), out)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "Allow this command? (y/n)") || !strings.Contains(last, "\x1b[1m") {
		t.Errorf("the preview's last row is %q, want the prompt with its colour", last)
	}
	if !strings.Contains(lines[0], "output 30") {
		t.Errorf("the preview's first row is %q, want output 30", lines[0])
	}
	// Without a size (not run by fzf) the whole screen, to the prompt.
	if all := preview(""); !strings.Contains(all, "output 1\n") || !strings.Contains(all, "(y/n)") {
		t.Errorf("a preview with no size lost rows:\n%s", all)
	}
}
