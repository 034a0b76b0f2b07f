package integration

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// shell is an authorized_keys line that runs whatever the client asks in
// this env (HOME, runtime dir, tma on PATH), with a terminal when asked:
// a login on a host with tma installed. The serve a [[remote]] command
// names and the attach derived from it both go through it (a forced
// command would run serve for both; docs/serve.md says what to set then).
func (e *env) shell(k testkit.Key) string {
	vars := []string{"HOME=" + e.home, "XDG_RUNTIME_DIR=" + e.run, "PATH=" + binDir + ":" + os.Getenv("PATH")}
	if b := os.Getenv("TMA_TMUX_BIN"); b != "" {
		vars = append(vars, "TMA_TMUX_BIN="+b)
	}
	return fmt.Sprintf(`command="env %s sh -c \"$SSH_ORIGINAL_COMMAND\"" %s`, strings.Join(vars, " "), k.Public)
}

// frameLines are the lines after the "--" of `tma pick --print`: the
// picker's first frame, each line its row's key, a tab, what fzf shows.
func frameLines(t *testing.T, out string) []string {
	t.Helper()
	_, frame, ok := strings.Cut(out, "\n--\n")
	if !ok {
		t.Fatalf("no frame in %q", out)
	}
	return strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
}

func indexOf(lines []string, pred func(string) bool) int {
	for i, l := range lines {
		if pred(l) {
			return i
		}
	}
	return -1
}

// The picker and watch show every [[remote]]'s rows by default, labelled
// with their host and keyed host:pane, after the local rows; a remote
// whose command hangs is one dimmed header row naming it and why, and
// the local rows do not wait for it; Enter on a remote row (the picker,
// then watch) opens one local window attached to that pane over ssh and
// then reuses it.
func TestRemotePickerAndWatchOverSSH(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	far := newEnv(t, "")
	b := far.s.StartAgent("claude", claudeBlocked)
	far.expect(b.Pane, "blocked/permission attn")
	// Its own session name, so a remote locator is not a local one.
	far.s.MustRun("rename-session", "-t", "s", "farbox")
	k := sshd.NewKey("laptop")
	sshd.Authorize(far.shell(k))
	far.device("pair", "laptop", "--id", k.Fingerprint, "--only")
	command := append(sshd.SSH(k), "tma", "-S", far.s.Socket, "serve", "--stdio", "--device", k.Fingerprint)
	// dead hangs with the default timeout (2 s); slow hangs with one long
	// enough that every frame the test reads comes while it is pending.
	near := newEnv(t, fmt.Sprintf("[[remote]]\nname = \"build\"\ncommand = %s\ntimeout_ms = 30000\n\n"+
		"[[remote]]\nname = \"dead\"\ncommand = [\"sleep\", \"600\"]\n\n"+
		"[[remote]]\nname = \"slow\"\ncommand = [\"sleep\", \"600\"]\ntimeout_ms = 120000\n", tomlArgv(command)))
	withFzf(t, near)
	l := near.s.StartAgent("claude", claudeIdle)
	near.expect(l.Pane, "idle")
	key := "build:" + b.Pane

	// One frame: --print waits for the remotes to answer or time out, so
	// this env has no slow remote.
	printEnv := newEnv(t, fmt.Sprintf("[[remote]]\nname = \"build\"\ncommand = %s\ntimeout_ms = 30000\n\n"+
		"[[remote]]\nname = \"dead\"\ncommand = [\"sleep\", \"600\"]\n", tomlArgv(command)))
	pl := printEnv.s.StartAgent("claude", claudeIdle)
	printEnv.expect(pl.Pane, "idle")
	out, errs, code := printEnv.tma("pick", "--print")
	if code != 0 {
		t.Fatalf("pick --print: exit %d %s", code, errs)
	}
	lines := frameLines(t, out)
	loc, rem := indexOf(lines, func(s string) bool { return strings.HasPrefix(s, pl.Pane+"\t") }), indexOf(lines, func(s string) bool { return strings.HasPrefix(s, key+"\t") })
	dead := indexOf(lines, func(s string) bool {
		return strings.HasPrefix(s, "\t") && strings.Contains(s, "dead: unreachable (timeout 2s)")
	})
	if loc < 0 || rem < 0 || dead < 0 || !(loc < rem && rem < dead) || len(lines) != 3 {
		t.Errorf("picker frame (local %d, remote %d, dead header %d):\n%s", loc, rem, dead, strings.Join(lines, "\n"))
	}
	if rem >= 0 && (!strings.Contains(lines[rem], "build ") || !strings.Contains(lines[rem], "claude")) {
		t.Errorf("the remote row is not labelled with its host: %q", lines[rem])
	}
	out, errs, code = printEnv.tma("watch", "--print")
	if code != 0 {
		t.Fatalf("watch --print: exit %d %s", code, errs)
	}
	wl := strings.Split(out, "\n")
	wloc := indexOf(wl, func(s string) bool { return strings.Contains(s, printEnv.locator(pl.Pane)) })
	wrem := indexOf(wl, func(s string) bool { return strings.Contains(s, "build ") && strings.Contains(s, far.locator(b.Pane)) })
	wdead := indexOf(wl, func(s string) bool { return strings.Contains(s, "dead: unreachable (timeout 2s)") })
	if wloc < 0 || wrem < 0 || wdead < 0 || !(wloc < wrem && wrem < wdead) {
		t.Errorf("watch frame (local %d, remote %d, dead %d):\n%s", wloc, wrem, wdead, out)
	}

	// The live picker: the local row is drawn while slow is still
	// connecting (its 120 s are nowhere near), the remote rows and dead's
	// header come on their own clocks.
	picker := near.tmaWindow("tma; echo PICKER-EXIT $?; sleep 600")
	start := time.Now()
	c := near.attach(picker)
	near.waitScreen(picker, "the local row while slow connects", func(s string) bool {
		return strings.Contains(s, near.locator(l.Pane)) && strings.Contains(s, "slow: connecting…")
	})
	if took := time.Since(start); took > 60*time.Second {
		t.Errorf("the local row took %s", took)
	}
	scr := near.waitScreen(picker, "the remote row and dead's header", func(s string) bool {
		return strings.Contains(s, far.locator(b.Pane)) && strings.Contains(s, "dead: unreachable (timeout 2s)")
	})
	if lineOf(scr, near.locator(l.Pane)) > lineOf(scr, far.locator(b.Pane)) {
		t.Errorf("the remote row is above the local one:\n%s", scr)
	}
	// Enter on the remote row (the query leaves only it): a window
	// called build:%N, running the ssh attach, the client moved into it.
	near.s.MustRun("send-keys", "-t", picker, "-l", far.locator(b.Pane))
	near.waitScreen(picker, "the query typed", func(s string) bool { return strings.Contains(s, "tma> "+far.locator(b.Pane)) })
	// Its preview is its card, asked on the held connection; this device
	// holds read only, so the dialog's words stay on the host.
	near.waitScreen(picker, "the remote row's card in the preview", func(s string) bool {
		return strings.Contains(s, "waits on: permission") && !strings.Contains(s, "Do you want to proceed")
	})
	time.Sleep(300 * time.Millisecond)
	near.s.MustRun("send-keys", "-t", picker, "Enter")
	if scr := near.waitScreen(picker, "the picker closed", func(s string) bool { return strings.Contains(s, "PICKER-EXIT") }); !strings.Contains(scr, "PICKER-EXIT 0") {
		t.Fatalf("the picker failed:\n%s", scr)
	}
	var win string
	near.s.WaitFor(func() bool { win = near.remoteWindow(key); return win != "" }, "a window called "+key)
	c.waitPane(win, "Enter on the remote row")
	cmdline := near.paneCmdline(win)
	if !strings.Contains(cmdline, "'attach' '--pane' '"+b.Pane+"'") || !strings.Contains(cmdline, "'ssh' '-t' ") {
		t.Errorf("the window runs %q", cmdline)
	}
	// The far server sees the ssh attach as a client on b's session.
	far.s.WaitFor(func() bool { return len(far.clients()) > 0 }, "a client attached to the remote server over ssh")
	if got := strings.TrimSpace(far.s.MustRun("list-clients", "-F", "#{client_session}")); got != "farbox" {
		t.Errorf("the remote client is on %q", got)
	}

	// watch: End is the last row (the headers are not rows), Enter jumps
	// to the same window rather than a second one.
	watch := near.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	c.waitPane(win, "still in the remote window")
	near.waitScreen(watch, "remote rows in watch", func(s string) bool {
		return strings.Contains(s, far.locator(b.Pane)) && strings.Contains(s, "dead: unreachable (timeout 2s)") && strings.Contains(s, "slow: connecting…")
	})
	// watch holds its connection: refreshes ask over it, no new ssh
	// session starts while it runs.
	sessions := strings.Count(sshd.Log(), "Starting session")
	time.Sleep(3500 * time.Millisecond)
	if n := strings.Count(sshd.Log(), "Starting session"); n != sessions {
		t.Errorf("watch started %d ssh sessions in 3.5 s of refreshes", n-sessions)
	}
	near.s.MustRun("select-window", "-t", watch)
	c.waitPane(watch, "on the watch window")
	near.s.MustRun("send-keys", "-t", watch, "End")
	near.waitScreen(watch, "the remote row's card in watch's preview", func(s string) bool {
		return strings.Contains(s, "waits on: permission")
	})
	near.s.MustRun("send-keys", "-t", watch, "Enter")
	c.waitPane(win, "Enter in watch on the remote row")
	if n := strings.Count(near.s.MustRun("list-windows", "-a", "-F", "#{window_name}"), key+"\n"); n != 1 {
		t.Errorf("%d windows called %s", n, key)
	}

	// tma jump --host --pane is the same window; a pane the host does not
	// have is exit 3.
	near.s.MustRun("select-window", "-t", watch)
	c.waitPane(watch, "back on the watch window")
	if _, errs, code := near.tma("--client", c.name, "jump", "--host", "build", "--pane", b.Pane); code != 0 {
		t.Fatalf("jump --host: exit %d %s", code, errs)
	}
	c.waitPane(win, "jump --host build --pane")
	if _, errs, code := near.tma("--client", c.name, "jump", "--host", "build", "--pane", "%999"); code != 3 || errs != "tma: error: no such pane %999 on build\n" {
		t.Errorf("jump --host to a pane that is not there: exit %d %q", code, errs)
	}
	if n := strings.Count(near.s.MustRun("list-windows", "-a", "-F", "#{window_name}"), key+"\n"); n != 1 {
		t.Errorf("%d windows called %s after jump --host", n, key)
	}

	// From the temporary watch session (prefix G) the window goes beside
	// the pane G was pressed in: the one-use session closes after the
	// jump, and the window outlives it.
	near.s.MustRun("kill-window", "-t", win)
	near.s.MustRun("select-window", "-t", watch)
	c.waitPane(watch, "on the watch window again")
	near.mustTma("watch", "--temporary-session", "--client", c.name)
	var sess string
	near.s.WaitFor(func() bool {
		out, _ := near.s.Run("display", "-p", "-c", c.name, "#{session_name}")
		sess = strings.TrimSpace(out)
		return strings.HasPrefix(sess, "tma-watch-")
	}, "client in the temporary session")
	wp := c.pane()
	near.waitScreen(wp, "remote rows in the temporary watch", func(s string) bool { return strings.Contains(s, far.locator(b.Pane)) })
	near.s.MustRun("send-keys", "-t", wp, "End")
	time.Sleep(300 * time.Millisecond)
	near.s.MustRun("send-keys", "-t", wp, "Enter")
	near.s.WaitFor(func() bool { win = near.remoteWindow(key); return win != "" }, "the window opened from the temporary session")
	c.waitPane(win, "Enter on the remote row from the temporary session")
	near.s.WaitFor(func() bool { _, err := near.s.Run("has-session", "-t", "="+sess); return err != nil }, "temporary session destroyed")
	if got := strings.TrimSpace(near.s.MustRun("display", "-p", "-t", win, "#{session_name}")); got != "s" {
		t.Errorf("the window is in session %q, not the origin's", got)
	}
}

// remoteWindow is the pane of the window called name, "" when none.
func (e *env) remoteWindow(name string) string {
	out, _ := e.s.Run("list-panes", "-a", "-F", "#{pane_id}\t#{window_name}")
	for _, l := range strings.Split(out, "\n") {
		if id, n, ok := strings.Cut(l, "\t"); ok && n == name {
			return id
		}
	}
	return ""
}

// paneCmdline is the command line of the processes under a pane's shell.
func (e *env) paneCmdline(pane string) string {
	pid := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", pane, "#{pane_pid}"))
	b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
	return strings.ReplaceAll(string(b), "\x00", " ")
}
