package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/testkit"
)

// The daemon tier against real, isolated servers. Every daemon a test
// starts is stopped when the test ends (and would end with its server
// anyway, which is one of the things tested).

// paths is where this env's daemon lives (its runtime dir is e.run).
func (e *env) paths() daemon.Paths {
	return daemon.ForEnv(e.s.Socket, func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return e.run
		}
		return os.Getenv(k)
	})
}

// running is the daemon holding this server's lock, nil when none.
func (e *env) running() *daemon.Running {
	e.t.Helper()
	r, err := daemon.Find(e.paths())
	if err != nil {
		e.t.Fatalf("find: %v", err)
	}
	return r
}

// ensure runs `tma daemon --ensure`, expects exit 0, and stops the daemon
// when the test ends.
func (e *env) ensure() *daemon.Running {
	e.t.Helper()
	out, errs, code := e.tma("daemon", "--ensure")
	if code != 0 || out != "" {
		e.t.Fatalf("daemon --ensure: exit %d\n%s%s\nlog:\n%s", code, out, errs, e.daemonLog())
	}
	r := e.running()
	if r == nil {
		e.t.Fatalf("--ensure exited 0 with no daemon holding the lock\nlog:\n%s", e.daemonLog())
	}
	e.t.Cleanup(func() { e.stopDaemon() })
	return r
}

// stopDaemon SIGTERMs whatever daemon holds the lock and waits for it.
func (e *env) stopDaemon() { stopDaemonAt(e.paths()) }

// stopDaemonAt stops the daemon at p, if one runs, and waits (10 s at
// most) for its lock to be free.
func stopDaemonAt(p daemon.Paths) {
	r, _ := daemon.Find(p)
	if r == nil {
		return
	}
	_ = r.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r, _ := daemon.Find(p); r == nil {
			return
		}
	}
}

func (e *env) daemonLog() string {
	b, _ := os.ReadFile(e.paths().Log)
	return string(b)
}

// hello asks the daemon who it is.
func (e *env) hello() *daemon.Hello {
	e.t.Helper()
	h, err := daemon.Ask(e.paths(), 2*time.Second)
	if err != nil || h == nil {
		e.t.Fatalf("hello: %+v %v", h, err)
	}
	return h
}

// daemonsOf counts the tma-daemon processes serving this server.
func daemonsOf(socket string) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(string(b), "\x00")
		if len(argv) > 0 && filepath.Base(argv[0]) == "tma-daemon" && strings.Contains(string(b), "\x00"+socket+"\x00") {
			if st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil {
				if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
					continue // exited, not yet reaped
				}
			}
			n++
		}
	}
	return n
}

// TestDaemonEnsure: --ensure starts one detached daemon for this server
// (socket 0600 in a 0700 dir, pid and version in the lock), a second
// --ensure is a quiet no-op, racing ones leave exactly one, and the
// foreground form refuses to become a second.
func TestDaemonEnsure(t *testing.T) {
	e := newEnv(t, "")
	r := e.ensure()
	p := e.paths()
	if st, err := os.Lstat(p.Socket); err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", st, err)
	}
	if st, _ := os.Stat(p.Dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(p.Log); st == nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("log: %v", st)
	}
	h := e.hello()
	if h.PID != r.PID || h.Version != r.Version || h.Server != e.s.Socket || r.Version == "" {
		t.Fatalf("hello %+v, lock %+v", h, r)
	}
	if again := e.ensure(); again.PID != r.PID {
		t.Fatalf("a second --ensure replaced the daemon: %d -> %d", r.PID, again.PID)
	}
	_, errs, code := e.tma("daemon")
	if code != 1 || !strings.Contains(errs, "already running for this server (pid "+strconv.Itoa(r.PID)+")") {
		t.Fatalf("a foreground daemon beside one: exit %d %s", code, errs)
	}
	if n := daemonsOf(e.s.Socket); n != 1 {
		t.Fatalf("%d daemons serve the server", n)
	}

	// Racing --ensure with none running: the flock decides, one is left.
	e.stopDaemon()
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, codes[i] = e.tma("daemon", "--ensure")
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("racing --ensure %d: exit %d\nlog:\n%s", i, c, e.daemonLog())
		}
	}
	won := e.running()
	if won == nil {
		t.Fatal("no daemon after the race")
	}
	// Losers exit once the lock turns them away.
	for deadline := time.Now().Add(5 * time.Second); daemonsOf(e.s.Socket) != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d daemons after the race", daemonsOf(e.s.Socket))
		}
	}
	if h := e.hello(); h.PID != won.PID {
		t.Fatalf("the socket answers pid %d, the lock names %d", h.PID, won.PID)
	}
}

// TestDaemonStaleAndKilled: a lock and socket a dead daemon left are taken
// over; after kill -9, --ensure starts a new one; a lock another user owns
// is refused.
func TestDaemonStaleAndKilled(t *testing.T) {
	e := newEnv(t, "")
	p := e.paths()
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A dead pid in a lock nobody holds, and a socket nobody listens on.
	dead := exec.Command("true")
	dead.Run()
	os.WriteFile(p.Lock, []byte(strconv.Itoa(dead.Process.Pid)+" 0.0.1\n"), 0o600)
	ln, err := netListenUnix(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln()
	r := e.ensure()
	if r.PID == dead.Process.Pid || r.Version == "0.0.1" {
		t.Fatalf("the stale lock was not taken over: %+v", r)
	}
	e.hello()

	// kill -9: the lock and socket stay behind, and are taken over.
	if err := syscall.Kill(r.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); e.running() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a killed daemon still holds the lock")
		}
	}
	if _, err := os.Lstat(p.Socket); err != nil {
		t.Fatalf("kill -9 removed the socket? %v", err)
	}
	r2 := e.ensure()
	if r2.PID == r.PID {
		t.Fatal("no new daemon after kill -9")
	}
	if h := e.hello(); h.PID != r2.PID {
		t.Fatalf("hello pid %d, lock %d", h.PID, r2.PID)
	}
	// The killed daemon's stages went with it: one pipeline serves the
	// server (its control clients are the new scan's).
	e.s.WaitFor(func() bool { return countStages(e.s.Socket) == 3 }, "one pipeline of three stages")

	if os.Getuid() != 0 {
		t.Skip("a lock another user owns needs root to make")
	}
	e.stopDaemon()
	if err := os.Chown(p.Lock, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	_, errs, code := e.tma("daemon", "--ensure")
	if code != 1 || !strings.Contains(errs, "uid 4242") {
		t.Fatalf("a foreign lock: exit %d %s", code, errs)
	}
	if r, _ := daemon.Find(p); r != nil {
		t.Fatalf("a daemon started beside a foreign lock: %+v", r)
	}
}

// countStages counts the pipeline stages (tma-scan, tma-fold, tma-stamp)
// running against this server.
func countStages(socket string) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(string(b), "\x00")
		switch filepath.Base(argv[0]) {
		case "tma-scan", "tma-fold", "tma-stamp":
			if strings.Contains(string(b), "\x00"+socket+"\x00") {
				n++
			}
		}
	}
	return n
}

// TestDaemonEndsWithItsServer: kill the server and the daemon is gone
// (lock free, socket removed, stages and control clients ended) within 2 s.
func TestDaemonEndsWithItsServer(t *testing.T) {
	e := newEnv(t, "")
	e.ensure()
	p := e.paths()
	e.s.WaitFor(func() bool { return countStages(e.s.Socket) == 3 }, "the pipeline")
	e.s.MustRun("kill-server")
	start := time.Now()
	for r, _ := daemon.Find(p); r != nil; r, _ = daemon.Find(p) {
		if time.Since(start) > 2*time.Second {
			t.Fatalf("the daemon outlived its server by 2 s\nlog:\n%s", e.daemonLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Lstat(p.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	e.s.WaitFor(func() bool { return countStages(e.s.Socket) == 0 }, "the stages to end")
	if !strings.Contains(e.daemonLog(), "its tmux server exited") {
		t.Fatalf("log:\n%s", e.daemonLog())
	}
}

// TestDaemonRestart: --restart stops the running daemon with SIGTERM and
// starts a new one, printing the manual's two lines; with none running it
// starts one; a daemon that will not take SIGTERM is reported, not
// killed, and no replacement is started; a replacement that cannot come up
// is a failure.
func TestDaemonRestart(t *testing.T) {
	e := newEnv(t, "")
	r := e.ensure()
	out, errs, code := e.tma("daemon", "--restart")
	want := "tma: stopped the running daemon\ntma: daemon restarted (" + r.Version + ")\n"
	if code != 0 || out != want {
		t.Fatalf("restart: exit %d\n%s%s", code, out, errs)
	}
	r2 := e.running()
	if r2 == nil || r2.PID == r.PID {
		t.Fatalf("restart left %+v (was %+v)", r2, r)
	}
	if !strings.Contains(e.daemonLog(), "stopping: signal terminated") {
		t.Fatalf("the old daemon did not exit on SIGTERM:\n%s", e.daemonLog())
	}
	e.stopDaemon()
	if out, errs, code := e.tma("daemon", "--restart"); code != 0 || out != "tma: daemon restarted ("+r.Version+")\n" {
		t.Fatalf("restart with none running: exit %d %q %s\nlog:\n%s", code, out, errs, e.daemonLog())
	}
	e.stopDaemon()

	// Something occupying the socket path: the replacement never answers.
	p := e.paths()
	os.Remove(p.Socket)
	if err := os.Mkdir(p.Socket, 0o700); err != nil {
		t.Fatal(err)
	}
	_, errs, code = e.tma("daemon", "--restart")
	if code != 1 || !strings.Contains(errs, "did not come up") || !strings.Contains(errs, "not a socket") {
		t.Fatalf("an occupied socket path: exit %d %s", code, errs)
	}
	os.Remove(p.Socket)

	// A daemon that ignores SIGTERM (a stand-in holding the lock).
	holdLockEnv(t, p, `trap '' TERM`)
	start := time.Now()
	out, errs, code = e.tma("daemon", "--restart")
	if code != 1 || out != "" || !strings.Contains(errs, "did not exit") || !strings.Contains(errs, "was not killed") || !strings.Contains(errs, "tma daemon --ensure") {
		t.Fatalf("a wedged daemon: exit %d\n%s%s", code, out, errs)
	}
	if time.Since(start) < 4*time.Second {
		t.Fatalf("gave up after %s", time.Since(start))
	}
	if h, _ := daemon.Ask(p, time.Second); h != nil {
		t.Fatalf("a replacement was started beside the wedged daemon: %+v", h)
	}
}

// holdLockEnv plays a daemon holding p's lock: a child running trap (then
// sleeping), named in the lock this test holds.
func holdLockEnv(t *testing.T, p daemon.Paths, trap string) *exec.Cmd {
	t.Helper()
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command("sh", "-c", trap+`; : > "$1"; while :; do sleep 0.05; done`, "sh", ready)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	f, err := os.OpenFile(p.Lock, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.WriteString(strconv.Itoa(cmd.Process.Pid) + " 0.0.1\n")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("the stand-in daemon never started")
		}
	}
}

// netListenUnix makes a socket file at path and returns what closes it,
// leaving the file behind as a killed daemon does.
func netListenUnix(path string) (func(), error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return func() { ln.Close() }, nil
}

// statusOption reads @tma_status ("" when unset).
func (e *env) statusOption() string {
	out, _ := e.s.Run("show-options", "-gqv", "@tma_status")
	return strings.TrimRight(out, "\n")
}

// TestDaemonStatusLine: with a daemon, `tma status` is answered from its
// latest cycle with no tmux spawn at all (a tmux that does not exist
// cannot be asked), and is what the cycle itself prints; @tma_status holds
// exactly that line, follows a change, and is written only on change.
func TestDaemonStatusLine(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	a.Paint(claudeBlocked) // on screen before the first look
	noDaemon := t.TempDir()
	var cycle string
	e.s.WaitFor(func() bool {
		out, _, code := e.tmaEnv([]string{"XDG_RUNTIME_DIR=" + noDaemon}, "status") // no daemon there: the pipeline
		cycle = out
		return code == 0 && strings.Contains(cycle, "tma:blocked")
	}, "the cycle's status to say blocked")
	e.ensure()
	e.s.WaitFor(func() bool { return e.statusOption()+"\n" == cycle }, "@tma_status to be `tma status`")
	out, errs, code := e.tmaEnv([]string{"TMA_TMUX_BIN=/nonexistent/tmux"}, "status")
	if code != 0 || out != cycle {
		t.Fatalf("status through the daemon with no tmux to spawn: exit %d %q %s (want %q)", code, out, errs, cycle)
	}
	out, _, code = e.tmaEnv([]string{"TMA_TMUX_BIN=/nonexistent/tmux"}, "status", "--format", "json", "--agent", "claude")
	if code != 0 || out != `{"schema":1,"blocked":1,"working":0,"done":0,"idle":0,"unknown":0}`+"\n" {
		t.Fatalf("json with a selector: exit %d %q", code, out)
	}

	// Written only on change: a value set behind the daemon's back stays
	// while nothing changes...
	e.s.MustRun("set-option", "-g", "@tma_status", "sentinel")
	time.Sleep(2500 * time.Millisecond) // two of the daemon's cycles
	if got := e.statusOption(); got != "sentinel" {
		t.Fatalf("an unchanged fleet rewrote @tma_status: %q", got)
	}
	// ...and a change is followed.
	a.Paint(claudeWorking)
	e.s.WaitFor(func() bool { return strings.Contains(e.statusOption(), "tma:working") }, "@tma_status to follow the change")
	want, _, _ := e.tmaEnv([]string{"XDG_RUNTIME_DIR=" + t.TempDir()}, "status")
	e.s.WaitFor(func() bool { return e.statusOption()+"\n" == want }, "@tma_status to equal `tma status` again")
	if out, _, _ := e.tma("status"); out != want {
		t.Fatalf("status through the daemon %q, the cycle's %q", out, want)
	}

	// A clean exit unsets it: nothing would keep it true.
	e.stopDaemon()
	if got := e.statusOption(); got != "" {
		t.Fatalf("@tma_status after the daemon stopped: %q", got)
	}
}

// TestDaemonHookAck: with a daemon the hook hands its event over and the
// daemon commits it; a daemon whose manifests map the event to nothing
// (an older build's, say) refuses it and the hook stamps the pane itself;
// with no daemon, or one that never answers, the hook stamps it too and
// returns at once.
func TestDaemonHookAck(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.ensure()
	// The daemon's first look captures the idle screen; an event older than
	// that capture would rightly lose to it.
	e.s.WaitFor(func() bool { return e.hello().Cycles > 0 }, "the daemon's first cycle")
	errs := e.fireToDaemon(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`, "handed to the daemon")
	if !strings.Contains(errs, "handed to the daemon") {
		t.Fatalf("the hook did not hand over:\n%s", errs)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o := e.opts(a.Pane)
		if o["@agent_state"] == "working" && o["@agent_source"] == "hook" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon's commit did not land: %v\nlog:\n%s", o, e.daemonLog())
		}
	}
	e.s.WaitFor(func() bool { return strings.Contains(e.daemonLog(), "hook claude UserPromptSubmit on "+a.Pane) }, "the commit in the daemon's log")
	e.stopDaemon()

	// A daemon that runs an older claude manifest with no UserPromptSubmit
	// mapping (a user manifest shadowing the bundled one, in its HOME only).
	old := t.TempDir()
	agents := filepath.Join(old, ".config", "tma", "agents")
	os.MkdirAll(agents, 0o755)
	src, err := os.ReadFile(filepath.Join(root(), "manifests", "agents", "claude.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := strings.Replace(string(src), "[[hooks.map]]\nevent = \"UserPromptSubmit\"\nclaim = { state = \"working\" }\n\n", "", 1)
	if m == string(src) {
		t.Fatal("the claude manifest no longer maps UserPromptSubmit as this test expects")
	}
	os.WriteFile(filepath.Join(agents, "claude.toml"), []byte(m), 0o644)
	if _, errs, code := e.tmaEnv([]string{"HOME=" + old}, "daemon", "--ensure"); code != 0 {
		t.Fatalf("the older daemon: exit %d %s", code, errs)
	}
	t.Cleanup(e.stopDaemon)
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`) // idle, through the daemon
	e.s.WaitFor(func() bool { return e.opts(a.Pane)["@agent_state"] == "idle" }, "idle")
	errs = e.fireToDaemon(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`, "the daemon declined")
	if !strings.Contains(errs, "the daemon declined (unmapped") || !strings.Contains(errs, "UserPromptSubmit → working") {
		t.Fatalf("a refused event was not stamped by the hook:\n%s", errs)
	}
	if o := e.opts(a.Pane); o["@agent_state"] != "working" {
		t.Fatalf("after the hook's own stamp: %v", o)
	}
	e.stopDaemon()

	// No daemon: the hook stamps, as it always did.
	errs = e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	if !strings.Contains(errs, "no daemon for this server") || e.opts(a.Pane)["@agent_state"] != "idle" {
		t.Fatalf("no daemon:\n%s\n%v", errs, e.opts(a.Pane))
	}

	// A socket that accepts and never answers: the hook's bound is the
	// daemon's only cost.
	ln, err := net.Listen("unix", e.paths().Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	errs = e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	if !strings.Contains(errs, "did not acknowledge") || e.opts(a.Pane)["@agent_state"] != "working" {
		t.Fatalf("a silent daemon:\n%s\n%v", errs, e.opts(a.Pane))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a silent daemon held the hook %s", d)
	}
}

func root() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

func (e *env) writeConfig(body string) {
	e.t.Helper()
	d := filepath.Join(e.home, ".config", "tma")
	os.MkdirAll(d, 0o755)
	if err := os.WriteFile(filepath.Join(d, "config.toml"), []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// TestDaemonReload: tma reload swaps a good config in (the status glyph
// follows); a broken one is refused with exit 1 naming it, the daemon keeps
// its pair and its pipeline, logs the failure, and doctor shows it until a
// reload takes.
func TestDaemonReload(t *testing.T) {
	e := newEnv(t, "[status]\nblocked = { glyph = \"X\" }\n")
	e.s.StartAgent("claude", claudeBlocked)
	e.ensure()
	e.s.WaitFor(func() bool { return strings.Contains(e.statusOption(), "]X1#") }, "the X glyph in @tma_status")

	e.writeConfig("[status]\nblocked = { glyph = 5 }\n")
	_, errs, code := e.tma("reload")
	if code != 1 || !strings.Contains(errs, "kept its previous config and manifests") || !strings.Contains(errs, "config.toml") {
		t.Fatalf("a broken config: exit %d %s", code, errs)
	}
	if !strings.Contains(e.daemonLog(), "reload failed, keeping the previous config and manifests") {
		t.Fatalf("log:\n%s", e.daemonLog())
	}
	h := e.hello()
	if h.Pipeline != "running" || h.ReloadError == "" {
		t.Fatalf("after a failed reload: %+v", h)
	}
	// The daemon and its stages run on: the old glyph still renders.
	cycles := h.Cycles
	e.s.WaitFor(func() bool { return e.hello().Cycles > cycles+1 }, "cycles after the failed reload")
	if got := e.statusOption(); !strings.Contains(got, "]X1#") {
		t.Fatalf("@tma_status after a failed reload: %q", got)
	}

	// Fixed but not yet reloaded: doctor names the failed reload.
	e.writeConfig("[status]\nblocked = { glyph = \"Y\" }\n")
	out, _, _ := e.tma("doctor")
	if !regexp.MustCompile(`(?m)^daemon:  running \(.*\.sock\)\n {9}its last reload \(\d\d:\d\d:\d\d\) failed and it kept the config and manifests it had: `).MatchString(out) {
		t.Fatalf("doctor after a failed reload:\n%s", out)
	}
	out, errs, code = e.tma("reload")
	if code != 0 || out != "tma: reloaded the daemon's config + manifests\n" {
		t.Fatalf("a good reload: exit %d\n%s%s", code, out, errs)
	}
	e.s.WaitFor(func() bool { return strings.Contains(e.statusOption(), "]Y1#") }, "the Y glyph in @tma_status")
	if h := e.hello(); h.ReloadError != "" {
		t.Fatalf("the error outlived a good reload: %+v", h)
	}
	if out, _, _ := e.tma("doctor"); strings.Contains(out, "last reload") {
		t.Fatalf("doctor still names a failed reload:\n%s", out)
	}
	// The stages read what the daemon accepted.
	if b, _ := os.ReadFile(e.paths().Config); string(b) != "[status]\nblocked = { glyph = \"Y\" }\n" {
		t.Fatalf("the stages' config: %q", b)
	}
}

// TestDaemonDoctor: with a daemon, doctor's daemon line says running, wired
// panes reach tier 3 (no "not tier" line), an unwired one stays at tier 1
// with the daemon's fallback named, a detached server is covered, and a
// daemon of another build is named with the restart to run.
func TestDaemonDoctor(t *testing.T) {
	e := newEnv(t, "")
	if _, errs, code := e.tma("install-hooks", "claude", "--yes"); code != 0 {
		t.Fatalf("install-hooks: %d %s", code, errs)
	}
	a := e.s.StartAgent("claude", claudeBlocked)
	b := e.s.StartAgent("codex", claudeIdle)
	r := e.ensure()
	out, _, _ := e.tma("doctor")
	for _, re := range []string{
		`(?m)^daemon:  running \(` + regexp.QuoteMeta(e.paths().Socket) + `\)$`,
		"(?m)^clients: none attached — `#\\(\\)` status jobs do not run detached; the daemon is keeping state fresh meanwhile$",
		`(?m)^  ` + regexp.QuoteMeta(a.Pane) + `\s+claude\s+s:\d+\.0\s+tier 3   `,
		`(?m)^  ` + regexp.QuoteMeta(b.Pane) + `\s+codex\s+s:\d+\.0\s+tier 1   .*\n.*\n\s+not tier 2: hooks not installed for codex .*; a daemon is running and provides fallback capture \(tier 3\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("doctor lacks %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "not tier 3") || strings.Contains(out, "differs from this CLI") {
		t.Errorf("doctor with this build's daemon:\n%s", out)
	}
	js, _, _ := e.tma("doctor", "--json")
	var doc struct {
		Daemon json.RawMessage `json:"daemon"`
	}
	json.Unmarshal([]byte(js), &doc)
	var dd map[string]any
	json.Unmarshal(doc.Daemon, &dd)
	if dd["alive"] != true || dd["version"] != r.Version || dd["version_skew"] != false || dd["reload_error"] != nil {
		t.Fatalf("doctor --json daemon: %s", doc.Daemon)
	}
	if got := testkit.KeyOrder(t, string(doc.Daemon)); got != "alive socket version version_skew reload_error" {
		t.Errorf("daemon keys %s", got)
	}

	// Another build's daemon (a stand-in holding the lock as 0.0.1).
	e.stopDaemon()
	holdLockEnv(t, e.paths(), ":")
	out, _, _ = e.tma("doctor")
	want := "daemon:  running (" + e.paths().Socket + ")\n         version 0.0.1 differs from this CLI (" + r.Version + ") — `tma reload` only re-reads config and manifests; run `tma daemon --restart` to put this build in its place\n"
	if !strings.Contains(out, want) {
		t.Fatalf("doctor with a skewed daemon:\n%s\nwant:\n%s", out, want)
	}
}

// TestDaemonRearm: the tmux hooks install-hooks put on a server, lost
// since (a restarted server), are put back by the daemon on start.
func TestDaemonRearm(t *testing.T) {
	e := newEnv(t, "")
	if _, errs, code := e.tma("install-hooks", "claude", "--yes"); code != 0 {
		t.Fatalf("install-hooks: %d %s", code, errs)
	}
	for _, h := range []string{"after-select-pane", "session-window-changed"} {
		e.s.MustRun("set-hook", "-gu", h)
	}
	if out, errs, code := e.tma("install-hooks", "--check"); code != 1 || !strings.Contains(out+errs, "wiped") {
		t.Fatalf("the hooks are not wiped: exit %d\n%s%s", code, out, errs)
	}
	e.ensure()
	e.s.WaitFor(func() bool {
		return strings.Contains(e.daemonLog(), "re-armed the tmux hooks after-select-pane, session-window-changed")
	}, "the re-arm")
	if out, errs, code := e.tma("install-hooks", "--check"); code != 0 {
		t.Fatalf("--check after the re-arm: exit %d\n%s%s", code, out, errs)
	}
	// A daemon that finds them present adds nothing.
	e.stopDaemon()
	e.ensure()
	before := e.s.MustRun("show-hooks", "-g", "after-select-pane")
	time.Sleep(300 * time.Millisecond)
	if after := e.s.MustRun("show-hooks", "-g", "after-select-pane"); after != before || strings.Count(after, "after-select-pane[") != 1 {
		t.Fatalf("a second start changed the hooks:\n%s\n%s", before, after)
	}
}

// TestDaemonTransitions: the ring over the CLI, in text and JSON; with no
// daemon the command says so and exits 1.
func TestDaemonTransitions(t *testing.T) {
	e := newEnv(t, laneOff)
	if _, errs, code := e.tma("debug", "transitions"); code != 1 || !strings.Contains(errs, "no daemon running for this server") {
		t.Fatalf("no daemon: exit %d %s", code, errs)
	}
	a := e.s.StartAgent("claude", claudeIdle)
	e.ensure()
	e.s.WaitFor(func() bool {
		out, _, _ := e.tma("debug", "transitions")
		return strings.Contains(out, "  "+a.Pane+" ")
	}, "the pane's first observation")
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	var out string
	e.s.WaitFor(func() bool {
		out, _, _ = e.tma("debug", "transitions")
		return strings.Contains(out, "-> working ")
	}, "the hook's transition in the ring")
	re := `^transitions \(2 held, cap 256, 2 recorded over the daemon's life\):\n` +
		`  ` + regexp.QuoteMeta(a.Pane) + `\s+-\s+-> (idle|unknown)\s+at=\d+ src=\w+\n` +
		`  ` + regexp.QuoteMeta(a.Pane) + `\s+(idle|unknown)\s+-> working\s+at=\d+ src=hook\n$`
	if !regexp.MustCompile(re).MatchString(out) {
		t.Fatalf("transitions:\n%s", out)
	}
	js, _, code := e.tma("debug", "transitions", "--json")
	var doc daemon.TransitionsDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != 0 || doc.Schema != 1 || doc.Cap != 256 || doc.Recorded != 2 || len(doc.Transitions) != 2 {
		t.Fatalf("--json: %v %s", err, js)
	}
	if !strings.Contains(js, `"from":null`) || doc.Transitions[1].Src != "hook" || *doc.Transitions[1].From == "" {
		t.Fatalf("--json: %s", js)
	}
	if got := testkit.KeyOrder(t, js); got != "schema cap recorded transitions" {
		t.Fatalf("keys %s", got)
	}
}

// TestDaemonLauncher: sourcing the keys file install-keys writes starts a
// daemon for the server that sources it, once: sourcing it again starts
// no second one.
func TestDaemonLauncher(t *testing.T) {
	e := newEnv(t, "")
	conf := filepath.Join(e.home, ".tmux.conf")
	os.WriteFile(conf, nil, 0o644)
	if _, errs, code := e.tma("install-keys", "--yes", "--conf", conf); code != 0 {
		t.Fatalf("install-keys: %d %s", code, errs)
	}
	keys := filepath.Join(e.home, ".config", "tma", "tmux.conf")
	if !strings.Contains(read(t, keys), "daemon --ensure") {
		t.Fatalf("no launcher in %s", keys)
	}
	// run-shell runs with the server's global environment.
	for _, kv := range [][2]string{{"PATH", binDir + ":" + os.Getenv("PATH")}, {"XDG_RUNTIME_DIR", e.run}, {"HOME", e.home}, {"TMUX", ""}} {
		e.s.MustRun("set-environment", "-g", kv[0], kv[1])
	}
	t.Cleanup(e.stopDaemon)
	e.s.MustRun("source-file", keys)
	// The lock names the daemon before its socket listens: wait for both.
	var h *daemon.Hello
	e.s.WaitFor(func() bool {
		h, _ = daemon.Ask(e.paths(), 2*time.Second)
		return e.running() != nil && h != nil
	}, "the launcher's daemon")
	first := e.running()
	if h.Server != e.s.Socket {
		t.Fatalf("the daemon serves %s, not this server %s", h.Server, e.s.Socket)
	}
	e.s.MustRun("source-file", keys)
	// The second launcher's own --ensure is a tma-daemon process too until
	// it finds the lock held and exits (seconds under load): what must hold
	// is one daemon, the first, once it is gone.
	time.Sleep(time.Second)
	var r *daemon.Running
	e.s.WaitFor(func() bool { r = e.running(); return r != nil && r.PID == first.PID && daemonsOf(e.s.Socket) == 1 }, "one daemon after a second source")
	if r == nil || r.PID != first.PID {
		t.Fatalf("a second source: %+v (first %+v), %d daemons", r, first, daemonsOf(e.s.Socket))
	}
	// And it stays one: a second daemon that came up only after the wait
	// above would have passed it.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if n := daemonsOf(e.s.Socket); n != 1 {
			t.Fatalf("%d tma-daemon processes for this server after a second source settled to one", n)
		}
	}
	if r := e.running(); r == nil || r.PID != first.PID {
		t.Fatalf("after a second source the lock is held by %+v, not the first daemon %d", r, first.PID)
	}
}

// startIn is e.start with the runtime directory run: the daemon's (push
// mode) or one with no daemon in it (poll mode).
func (e *env) startIn(run string, args ...string) (*exec.Cmd, <-chan string, *bytes.Buffer) {
	e.t.Helper()
	cmd := exec.Command("dash", append([]string{filepath.Join(binDir, "tma"), "-L", e.s.Name}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return cmd, lines, &errb
}

// nextEvent reads the next event line within d, without its at_ms (the
// two streams' cycles run at their own times); "" when none came.
func nextEvent(t *testing.T, lines <-chan string, d time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the stream ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		delete(m, "at_ms")
		b, _ := json.Marshal(m)
		return string(b)
	case <-time.After(d):
		return ""
	}
}

// TestDaemonPushSubscribe: with a daemon, a stream polling once a minute
// still prints a hook's transition at once (the daemon's push woke it, and
// it ran its own cycle), and prints the same events as a stream with no
// daemon polling every second; when the daemon goes the stream polls on,
// silently, and picks a returning daemon back up.
func TestDaemonPushSubscribe(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.ensure()
	pushCmd, push, pushErr := e.startIn(e.run, "subscribe", "--json", "--events", "--interval", "60s")
	_, poll, _ := e.startIn(t.TempDir(), "subscribe", "--json", "--events", "--interval", "1s")
	time.Sleep(1500 * time.Millisecond) // both streams' first (silent) cycle, the subscription made

	// The screen follows the hook, as the agent's does: a working claim
	// over Claude's idle prompt is released by the screen two cycles on,
	// and a loaded machine's 1 s poll could then miss the working state
	// altogether (seen: the poll stream printed nothing for done -> working).
	fireAndCompare := func(event, to string) {
		t.Helper()
		e.fire(a.Pane, "claude", event, `{`+sess+`}`)
		if to == "working" {
			a.Paint(claudeWorking)
		} else {
			a.Paint(claudeIdle)
		}
		got := nextEvent(t, push, 20*time.Second)
		if got == "" {
			t.Fatalf("%s: the push stream printed nothing (its own poll is a minute away)\nstderr: %s\nlog:\n%s", event, pushErr, e.daemonLog())
		}
		want := nextEvent(t, poll, 20*time.Second)
		if got != want || !strings.Contains(got, `"to":"`+to+`"`) {
			t.Fatalf("%s: push %s\npoll %s", event, got, want)
		}
	}
	fireAndCompare("UserPromptSubmit", "working")
	fireAndCompare("Stop", "done")

	// The daemon goes: the push stream polls on (a minute apart), silent.
	e.stopDaemon()
	time.Sleep(500 * time.Millisecond)
	if pushCmd.ProcessState != nil || pushErr.Len() != 0 {
		t.Fatalf("the stream ended or spoke when the daemon went: %v %q", pushCmd.ProcessState, pushErr)
	}
	// It comes back: within a re-probe the stream rides it again.
	e.ensure()
	time.Sleep(3 * time.Second)
	fireAndCompare("UserPromptSubmit", "working")
	if pushErr.Len() != 0 {
		t.Fatalf("stderr: %s", pushErr)
	}
}

// TestDaemonPushWait: a wait polling once a minute returns on the daemon's
// push, with the row a polling wait returns.
func TestDaemonPushWait(t *testing.T) {
	e := newEnv(t, laneOff)
	// A working screen under the working claim: with an idle one the
	// polling wait's own cycles release the claim from the screen (two
	// cycles past the grace), racing the Stop this test times, and its row
	// would be that capture's, not the hook's.
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`)
	e.ensure()
	cmd, lines, errb := e.startIn(e.run, "wait", "--pane", a.Pane, "--until", "idle", "--interval", "60s", "--json", "--timeout", "50")
	pollCmd, pollLines, _ := e.startIn(t.TempDir(), "wait", "--pane", a.Pane, "--until", "idle", "--interval", "1s", "--json", "--timeout", "50")
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	row := func(lines <-chan string) map[string]any {
		var m map[string]any
		for l := range lines {
			json.Unmarshal([]byte(l), &m)
		}
		delete(m, "stamped_at_ms")
		return m
	}
	got := row(lines)
	cmd.Wait()
	if cmd.ProcessState.ExitCode() != 0 || got["state"] != "idle" {
		t.Fatalf("push wait: exit %d %v %s", cmd.ProcessState.ExitCode(), got, errb)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the push wait returned after %s: it waited for its poll", d)
	}
	want := row(pollLines)
	pollCmd.Wait()
	if mustJSON(t, got) != mustJSON(t, want) {
		t.Fatalf("push row %v\npoll row %v", got, want)
	}
}

// buildOld builds every tool as tma 0.0.1 (the daemon finds its stages
// beside itself).
func buildOld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-ldflags", "-X github.com/tmaproject/tma/lib/cli/common.Version=0.0.1", "-o", dir+"/", "./cmd/...")
	cmd.Dir = root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build 0.0.1: %v\n%s", err, out)
	}
	return dir
}

// TestDaemonUpgrade: [daemon] restart_on_upgrade replaces an older
// daemon from a surface (tma status) and from the hook path, at most once
// a minute per server; --restart from the older build goes back; off, or
// with equal versions, nothing is replaced; autostart starts one from a
// surface.
func TestDaemonUpgrade(t *testing.T) {
	e := newEnv(t, laneOff)
	old := buildOld(t)
	a := e.s.StartAgent("claude", claudeIdle)
	oldDaemon := func(flag string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(old, "tma-daemon"), "--socket-path", e.s.Socket, "daemon", flag)
		cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the 0.0.1 daemon %s: %v\n%s", flag, err, out)
		}
	}
	oldDaemon("--ensure")
	t.Cleanup(e.stopDaemon)
	if r := e.running(); r == nil || r.Version != "0.0.1" {
		t.Fatalf("the old daemon: %+v", r)
	}
	// A status line's run replaces it (in the background: this run is
	// answered by the old one).
	if _, errs, code := e.tma("status"); code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	e.s.WaitFor(func() bool { r := e.running(); return r != nil && r.Version == "0.1.0" }, "the 0.1.0 daemon in its place")
	if !strings.Contains(e.daemonLog(), "stopping: signal terminated") {
		t.Fatalf("the old daemon was not stopped with SIGTERM:\n%s", e.daemonLog())
	}

	// Going back on purpose: --restart from the older build.
	cmd := exec.Command(filepath.Join(old, "tma-daemon"), "--socket-path", e.s.Socket, "daemon", "--restart")
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "tma: daemon restarted (0.0.1)") {
		t.Fatalf("--restart from 0.0.1: %v %s", err, out)
	}
	// Within the minute no surface or hook replaces it again.
	e.tma("status")
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	time.Sleep(1500 * time.Millisecond)
	if r := e.running(); r == nil || r.Version != "0.0.1" {
		t.Fatalf("a second automatic restart within the minute: %+v", r)
	}
	// Past the minute (the claim's time moved back), the hook path replaces it.
	os.WriteFile(e.paths().Upgraded, []byte(itoa(time.Now().Add(-2*time.Minute).UnixMilli())+"\n"), 0o600)
	// The hook learns the daemon's version from its answer, which a loaded
	// machine can deliver past the hook's 20 ms bound (fireToDaemon).
	e.fireToDaemon(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`}`, "handed to the daemon")
	e.s.WaitFor(func() bool { r := e.running(); return r != nil && r.Version == "0.1.0" }, "the hook path's replacement")

	// Off: nothing replaces an older daemon.
	e.writeConfig(laneOff + "[daemon]\nrestart_on_upgrade = false\n")
	oldDaemon("--restart")
	os.Remove(e.paths().Upgraded)
	e.tma("status")
	time.Sleep(1500 * time.Millisecond)
	if r := e.running(); r == nil || r.Version != "0.0.1" {
		t.Fatalf("restart_on_upgrade = false replaced the daemon: %+v", r)
	}
	e.stopDaemon()

	// autostart: a surface starts one; off (the default), none starts.
	e.writeConfig(laneOff)
	e.tma("status")
	time.Sleep(1500 * time.Millisecond)
	if r := e.running(); r != nil {
		t.Fatalf("a daemon started without autostart: %+v", r)
	}
	e.writeConfig(laneOff + "[daemon]\nautostart = true\n")
	e.tma("status")
	e.s.WaitFor(func() bool { return e.running() != nil }, "autostart's daemon")
}

// windowOf is the name and automatic-rename of pane's window, and the
// options window_names keeps.
func (e *env) windowOf(pane string) (name, auto, orig, last string) {
	out := e.s.MustRun("display", "-p", "-t", pane, "#{window_name}\x1f#{?automatic-rename,on,off}\x1f#{@tma_window_name_orig}\x1f#{@tma_window_name_last}")
	f := strings.Split(strings.TrimRight(strings.ReplaceAll(out, `\037`, "\x1f"), "\n"), "\x1f")
	for len(f) < 4 {
		f = append(f, "")
	}
	return f[0], f[1], f[2], f[3]
}

// TestDaemonWindowNames: [daemon.window_names] names an agent's window
// after it and follows its state, saves the window's own name and
// automatic-rename on the first rename, leaves a window the user renamed
// alone, and gives the name back when the agent leaves and when the daemon
// stops.
func TestDaemonWindowNames(t *testing.T) {
	e := newEnv(t, "[daemon.window_names]\nformat = \"{agent}:{state}\"\n")
	a := e.s.StartAgent("claude", claudeBlocked)
	b := e.s.StartAgent("claude", claudeIdle)
	e.s.MustRun("rename-window", "-t", b.Pane, "work") // which turns its automatic-rename off
	// automatic-rename names a's window after its command, in its own time.
	e.s.WaitFor(func() bool { n, _, _, _ := e.windowOf(a.Pane); return n == "claude" }, "a's window named by tmux")
	before, _, _, _ := e.windowOf(a.Pane)
	e.ensure()
	e.s.WaitFor(func() bool { n, _, _, _ := e.windowOf(a.Pane); return n == "claude:blocked" }, "the blocked window's name")
	if n, auto, orig, last := e.windowOf(a.Pane); auto != "off" || orig != before || last != n {
		t.Fatalf("after the first rename: %q auto=%s orig=%q last=%q (was %q)", n, auto, orig, last, before)
	}
	e.s.WaitFor(func() bool { n, _, _, _ := e.windowOf(b.Pane); return n == "claude:idle" }, "the idle window's name")
	a.Paint(claudeWorking)
	e.s.WaitFor(func() bool { n, _, _, _ := e.windowOf(a.Pane); return n == "claude:working" }, "the name to follow the state")

	// The user renames a: tma leaves it alone however the state moves.
	e.s.MustRun("rename-window", "-t", a.Pane, "mine")
	a.Paint(claudeBlocked)
	e.s.WaitFor(func() bool { return strings.Contains(e.statusOption(), "tma:blocked") }, "the daemon to see blocked")
	time.Sleep(1500 * time.Millisecond)
	if n, _, _, _ := e.windowOf(a.Pane); n != "mine" {
		t.Fatalf("the user's name was overwritten: %q", n)
	}

	// The agent in b leaves (its process ends, the pane's shell stays):
	// the window gets its name and automatic-rename (off, as the user's
	// rename left it) back.
	pid := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", b.Pane, "#{pane_pid}"))
	if out, err := exec.Command("pkill", "-P", pid, "-x", "claude").CombinedOutput(); err != nil {
		t.Fatalf("pkill: %v %s", err, out)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, auto, orig, last := e.windowOf(b.Pane)
		if n == "work" && auto == "off" && orig == "" && last == "" {
			break
		}
		if time.Now().After(deadline) {
			out, _, _ := e.tma("ls")
			t.Fatalf("b's name not given back: %q auto=%s orig=%q last=%q\nls:\n%s\nlog:\n%s", n, auto, orig, last, out, e.daemonLog())
		}
	}

	// The daemon stops: every window tma still names is given back (a is
	// the user's now: its name stays, the options go).
	c := e.s.StartAgent("claude", claudeIdle)
	e.s.MustRun("rename-window", "-t", c.Pane, "cee")
	cBefore := "cee"
	e.s.WaitFor(func() bool { n, _, _, _ := e.windowOf(c.Pane); return n == "claude:idle" }, "c's name")
	e.stopDaemon()
	if n, _, orig, _ := e.windowOf(c.Pane); n != cBefore || orig != "" {
		t.Fatalf("c after the daemon stopped: %q orig=%q (was %q)", n, orig, cBefore)
	}
	if n, _, orig, _ := e.windowOf(a.Pane); n != "mine" || orig != "" {
		t.Fatalf("a after the daemon stopped: %q orig=%q", n, orig)
	}
}
