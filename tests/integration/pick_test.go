package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// withFzf puts an fzf beside the test binaries (as make install does), or
// skips when this machine has none.
func withFzf(t *testing.T, e *env) {
	t.Helper()
	src, err := exec.LookPath("fzf")
	if err != nil {
		src = "/tmp/fzfbin/fzf"
		if _, err := os.Stat(src); err != nil {
			t.Skip("fzf not installed")
		}
	}
	dst := filepath.Join(binDir, "fzf")
	if _, err := os.Stat(dst); err != nil {
		if err := os.Symlink(src, dst); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	// The panes the tests open run tma from the server's environment.
	e.s.MustRun("set-environment", "-g", "PATH", binDir+":"+os.Getenv("PATH"))
	e.s.MustRun("set-environment", "-g", "HOME", e.home)
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
	withFzf(t, e)
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
	withFzf(t, e)
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
