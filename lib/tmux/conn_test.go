package tmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux/listcall"
)

// A pane whose screen prints lines shaped like control-mode guards, and
// the sentinel's prefix: a capture through the connection reads them as
// screen text, byte for byte what a spawned capture reads.
const hostileScreen = `%end 1700000000 1 1\n%error 1700000000 2 1\n%begin 1700000000 3 1\nTMAEND0000000000000000\n%exit\nlast line`

func startScreen(t *testing.T, s *testkit.Server, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "screen")
	if err := os.WriteFile(f, []byte(strings.ReplaceAll(text, `\n`, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", "cat "+f+"; exec sleep 60"))
}

// The list and the captures through a control connection equal the ones a
// spawned client reads (the connection's own control client aside), with
// no process per call; a vanished pane costs only its own screen.
func TestConnAgreesWithSpawn(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	hostile := startScreen(t, s, hostileScreen)
	plain := startScreen(t, s, "hello\nworld")
	// Both lists must see the same panes: wait until each has printed its
	// screen and exec'd its sleep (pane_current_command, window_activity
	// and the screens stop changing).
	s.WaitFor(func() bool {
		for _, p := range []string{hostile, plain} {
			out, _ := s.Run("display", "-p", "-t", p, "#{pane_current_command}")
			if strings.TrimSpace(out) != "sleep" {
				return false
			}
		}
		out, _ := s.Run("capture-pane", "-p", "-t", hostile)
		return strings.Contains(out, "last line")
	}, "the screens printed and the sleeps exec'd")

	spawn := New(s.Bin, Target{SocketName: s.Name})
	want, err := spawn.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantShots, err := spawn.Capture(ctx, []string{hostile, plain, "%999"})
	if err != nil {
		t.Fatal(err)
	}

	viaConn := New(s.Bin, Target{SocketName: s.Name})
	if !viaConn.KeepConn(ctx, []string{"$0"}) {
		t.Fatal("no control connection")
	}
	defer viaConn.CloseConn()
	spawns := viaConn.Spawns
	got, err := viaConn.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	shots, err := viaConn.Capture(ctx, []string{hostile, plain, "%999"})
	if err != nil {
		t.Fatal(err)
	}
	if viaConn.Spawns != spawns {
		t.Errorf("%d tmux processes spawned through the connection", viaConn.Spawns-spawns)
	}
	var ctl int
	for _, c := range got.Clients {
		if c.Control {
			ctl++
		}
	}
	// Its own control client may or may not be listed yet (tmux lists a
	// client once its attach has set its session); no other one is.
	if ctl > 1 || len(got.Clients) != ctl {
		t.Errorf("the connection's list shows clients beyond its own: %+v", got.Clients)
	}
	got.Clients, want.Clients = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("list through the connection:\n%+v\nspawned:\n%+v", got, want)
	}
	if !reflect.DeepEqual(shots, wantShots) {
		t.Errorf("captures through the connection:\n%q\nspawned:\n%q", shots, wantShots)
	}
	if !strings.Contains(shots[hostile], "%end 1700000000 1 1\n") || !strings.Contains(shots[hostile], "last line") {
		t.Errorf("the guard-shaped screen lost lines: %q", shots[hostile])
	}
	if _, ok := shots["%999"]; ok {
		t.Errorf("a pane that does not exist has a screen")
	}

	// A command that fails reports tmux's words, and the connection lives on.
	if _, _, err := viaConn.Run(ctx, "", "capture-pane", "-p", "-t", "%999"); !errors.Is(err, ErrPaneGone) {
		t.Errorf("a missing pane through the connection: %v, want ErrPaneGone", err)
	}
	if !viaConn.conn.Alive() {
		t.Errorf("a failed command closed the connection")
	}
}

// The connection's session ending ends the connection: the call in flight
// is made again as a process, and the next KeepConn dials another session.
func TestConnLostFallsBackToSpawn(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	s.MustRun("new-session", "-d", "-s", "other", "sh")
	c := New(s.Bin, Target{SocketName: s.Name})
	sid := strings.TrimSpace(s.MustRun("display", "-p", "-t", "other:", "#{session_id}"))
	if !c.KeepConn(ctx, []string{sid}) {
		t.Fatal("no control connection")
	}
	defer c.CloseConn()
	s.MustRun("kill-session", "-t", "other")
	before := c.Spawns
	snap, err := c.List(ctx)
	if err != nil {
		t.Fatalf("the list after the connection's session ended: %v", err)
	}
	if len(snap.Panes) != 1 {
		t.Errorf("%d panes listed, want 1", len(snap.Panes))
	}
	if c.conn.Alive() {
		t.Errorf("the connection outlived its session")
	}
	if c.Spawns != before+1 {
		t.Errorf("the lost call spawned %d processes, want 1", c.Spawns-before)
	}
	if !c.KeepConn(ctx, []string{"$0"}) {
		t.Errorf("no redial after the loss")
	}
}

// A server that stops answering costs the call its deadline, not a hang,
// and the connection is not used again.
func TestConnTimeout(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	c := New(s.Bin, Target{SocketName: s.Name})
	if !c.KeepConn(ctx, []string{"$0"}) {
		t.Fatal("no control connection")
	}
	defer c.CloseConn()
	pid := strings.TrimSpace(s.MustRun("display", "-p", "#{pid}"))
	p, err := os.FindProcess(atoi(pid))
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Signal(syscall.SIGSTOP)
	defer func() { _ = p.Signal(syscall.SIGCONT) }()
	c.Timeout = 300 * time.Millisecond
	t0 := time.Now()
	_, err = c.List(ctx)
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("a stopped server: %v, want ErrTimeout", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("the call took %s", d)
	}
	if c.conn.Alive() {
		t.Errorf("a timed-out connection stays in use")
	}
}

// The socket names its server: ServerPID agrees with #{pid}, and a socket
// with no server behind it is 0.
func TestServerPID(t *testing.T) {
	s := testkit.NewServer(t)
	c := New(s.Bin, Target{SocketName: s.Name})
	want := atoi(strings.TrimSpace(s.MustRun("display", "-p", "#{pid}")))
	if got := c.ServerPID(os.Getenv); got != want {
		t.Errorf("ServerPID %d, #{pid} %d", got, want)
	}
	if got := New(s.Bin, Target{SocketPath: filepath.Join(t.TempDir(), "none")}).ServerPID(os.Getenv); got != 0 {
		t.Errorf("no server: %d", got)
	}
}

// takeList has c take p over: one spawn counted, and the snapshot List read.
func takeList(t *testing.T, c *Client, p *PendingList, want *Snapshot) {
	t.Helper()
	before := c.Spawns
	got, err := p.Wait(c)
	if err != nil {
		t.Fatal(err)
	}
	if c.Spawns != before+1 {
		t.Errorf("the taken call counted %d spawns, want 1", c.Spawns-before)
	}
	if !sameList(got, want) {
		t.Errorf("the taken list:\n%+v\nList:\n%+v", got, want)
	}
}

// sameList compares two lists of one server but for what its panes may
// change between two calls of a test that has just started it: the
// foreground command (tmux's default-shell -c execs the pane's sh a moment
// in), its current path (read from /proc/<pid>/cwd of that process, which
// reads empty while it execs: seen under load, "" against the test's
// directory) and the window's activity second.
func sameList(a, b *Snapshot) bool {
	norm := func(s *Snapshot) *Snapshot {
		if s == nil {
			return nil
		}
		c := *s
		c.Panes = slices.Clone(s.Panes)
		for i := range c.Panes {
			c.Panes[i].Command, c.Panes[i].CWD, c.Panes[i].WindowActivity = "", "", 0
		}
		return &c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// A list started early is what List reads; it is for its own binary and
// server only, and an abandoned one is not taken.
func TestPendingList(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	c := New(s.Bin, Target{SocketName: s.Name})
	want, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := New(s.Bin, Target{SocketName: s.Name}).StartList(ctx)
	if p.For(New("other-tmux", c.Target)) || p.For(New(s.Bin, Target{SocketName: "elsewhere"})) {
		t.Errorf("a pending list claims another binary or server")
	}
	if !p.For(c) {
		t.Fatal("a pending list refuses its own client")
	}
	takeList(t, c, p, want)
	if p.For(c) {
		t.Errorf("a taken list is offered again")
	}
	q := c.StartList(ctx)
	q.Abandon()
	if q.For(c) {
		t.Errorf("an abandoned list is offered")
	}
	// A server that is gone: the early call's error is the one List gives.
	gone := New(s.Bin, Target{SocketPath: filepath.Join(t.TempDir(), "none")})
	if _, err := gone.StartList(ctx).Wait(gone); !errors.Is(err, ErrNoServer) {
		t.Errorf("no server: %v", err)
	}
}

// The call prelist starts (listcall.Prestart) is taken over by the client
// that would make it, and reads what List reads; one for another server is
// ended, and the client spawns its own.
func TestPrestartedListIsTakenOver(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	c := New(s.Bin, Target{SocketName: s.Name})
	want, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TMA_TMUX_BIN": s.Bin, "HOME": t.TempDir(), "PATH": os.Getenv("PATH")}
	getenv := func(k string) string { return env[k] }
	defer func() { listcall.Pending = nil }()

	pre := listcall.Prestart([]string{"-L", s.Name}, getenv)
	if pre == nil {
		t.Fatal("Prestart started nothing")
	}
	listcall.Pending = pre
	p := New(s.Bin, c.Target).StartList(ctx)
	if p.call.p != pre.Proc || listcall.Pending != nil {
		t.Fatal("StartList did not take the prestarted call")
	}
	takeList(t, c, p, want)

	// A guess for another server: ended, and this client spawns its own.
	pre = listcall.Prestart([]string{"-L", s.Name + "-elsewhere"}, getenv)
	listcall.Pending = pre
	q := New(s.Bin, c.Target).StartList(ctx)
	if q.call.p == pre.Proc || listcall.Pending != nil {
		t.Fatal("a prestarted call for another server was taken")
	}
	if err := syscall.Kill(pre.Pid(), 0); err == nil {
		t.Errorf("the wrong guess %d is still running", pre.Pid())
	}
	if got, err := q.Wait(c); err != nil || !sameList(got, want) {
		t.Errorf("the client's own call after a wrong guess: %v", err)
	}
}

// A batch started before its lines are known runs them when a client of
// its own binary and server adopts it; a client of another server does not
// adopt it, and an abandoned one runs nothing and leaves no process.
func TestPendingBatch(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	c := New(s.Bin, Target{SocketName: s.Name})
	p := New(s.Bin, Target{SocketName: s.Name}).StartBatch(ctx)
	other := New(s.Bin, Target{SocketName: "elsewhere"})
	other.Adopt(p)
	if other.pre != nil {
		t.Fatal("a client of another server adopted the batch")
	}
	c.Adopt(p)
	if stderr, err := c.Exec(ctx, []string{"set -p -t " + pane + " @tma_pre 1"}); err != nil || stderr != "" {
		t.Fatalf("adopted batch: %v %s", err, stderr)
	}
	if c.Spawns != 1 {
		t.Errorf("the adopted batch counted %d spawns, want 1", c.Spawns)
	}
	if got := s.Option(pane, "@tma_pre"); got != "1" {
		t.Errorf("the adopted batch's line did not run: %q", got)
	}
	// The next batch spawns as ever.
	if _, err := c.Exec(ctx, []string{"set -p -t " + pane + " @tma_pre 2"}); err != nil || s.Option(pane, "@tma_pre") != "2" || c.Spawns != 2 {
		t.Errorf("the batch after the adopted one: %v, spawns %d", err, c.Spawns)
	}
	q := c.StartBatch(ctx)
	pid := q.call.p.Pid()
	t0 := time.Now()
	q.Abandon()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("abandoning took %s", d)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the abandoned client %d is still running", pid)
	}
	// A server that is gone: the adopted call's error is the one Exec gives.
	gone := New(s.Bin, Target{SocketPath: filepath.Join(t.TempDir(), "none")})
	gone.Adopt(New(s.Bin, gone.Target).StartBatch(ctx))
	if _, err := gone.Exec(ctx, []string{"set -g @x 1"}); !errors.Is(err, ErrNoServer) {
		t.Errorf("no server: %v", err)
	}
}

// The write client prebatch starts (listcall.PrestartBatch) is taken over
// by the hook's client and runs its lines; an unused one runs nothing and
// leaves no process, and one for another server is ended.
func TestPrestartedBatchIsTakenOver(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	env := map[string]string{"TMA_TMUX_BIN": s.Bin, "HOME": t.TempDir(), "PATH": os.Getenv("PATH"), "TMUX_PANE": pane}
	getenv := func(k string) string { return env[k] }
	noDaemon := func(string, string) string { return "" }
	defer func() { listcall.PendingBatch = nil }()
	args := []string{"-L", s.Name, "claude", "Stop"}

	pre := listcall.PrestartBatch(args, getenv, noDaemon)
	listcall.PendingBatch = pre
	c := New(s.Bin, Target{SocketName: s.Name})
	p := New(s.Bin, c.Target).StartBatch(ctx)
	if pre == nil || p.call.p != pre.Proc || listcall.PendingBatch != nil {
		t.Fatal("StartBatch did not take the prestarted batch")
	}
	c.Adopt(p)
	if stderr, err := c.Exec(ctx, []string{"set -p -t " + pane + " @tma_pre 1"}); err != nil || stderr != "" {
		t.Fatalf("the prestarted batch: %v %s", err, stderr)
	}
	if got := s.Option(pane, "@tma_pre"); got != "1" || c.Spawns != 1 {
		t.Errorf("the prestarted batch's line: %q, spawns %d", got, c.Spawns)
	}

	listcall.PendingBatch = listcall.PrestartBatch(args, getenv, noDaemon)
	q := New(s.Bin, c.Target).StartBatch(ctx)
	t0 := time.Now()
	q.Abandon()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("abandoning took %s", d)
	}
	if err := syscall.Kill(q.call.p.Pid(), 0); err == nil {
		t.Errorf("the abandoned batch %d is still running", q.call.p.Pid())
	}
	if got := s.Option(pane, "@tma_pre"); got != "1" {
		t.Errorf("an abandoned batch changed the pane: %q", got)
	}

	pre = listcall.PrestartBatch([]string{"-L", s.Name + "-elsewhere", "claude", "Stop"}, getenv, noDaemon)
	listcall.PendingBatch = pre
	r := New(s.Bin, c.Target).StartBatch(ctx)
	if r.call.p == pre.Proc || listcall.PendingBatch != nil {
		t.Fatal("a batch for another server was taken")
	}
	if err := syscall.Kill(pre.Pid(), 0); err == nil {
		t.Errorf("the batch for another server %d is still running", pre.Pid())
	}
	r.Abandon()
}

// A follower's control clients leave the session's environment alone: no
// update-environment on their attach (-E), and only what tmux needs to
// find the socket in theirs.
func TestControlClientsLeaveTheSessionEnvironment(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	s.MustRun("set", "-g", "update-environment", "TMA_ENV_PROBE")
	s.MustRun("set-environment", "-t", "s", "TMA_ENV_PROBE", "the user's")
	t.Setenv("TMA_ENV_PROBE", "a follower's")
	c := New(s.Bin, Target{SocketName: s.Name})
	sid := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{session_id}"))
	if !c.KeepConn(ctx, []string{sid}) {
		t.Fatal("no control connection")
	}
	defer c.CloseConn()
	p := c.NewPusher()
	defer p.Close()
	if n := p.Sync([]string{sid}); n != 1 {
		t.Fatalf("Sync watched %d sessions", n)
	}
	s.WaitFor(func() bool {
		out, _ := s.Run("list-clients", "-F", "#{client_control_mode}")
		return strings.Count(out, "1") >= 1
	}, "the control clients attached")
	if _, err := c.List(ctx); err != nil { // a call through the connection
		t.Fatal(err)
	}
	if got := strings.TrimSpace(s.MustRun("show-environment", "-t", "s", "TMA_ENV_PROBE")); got != "TMA_ENV_PROBE=the user's" {
		t.Errorf("the session's environment after the attaches: %q", got)
	}
}

// tmux's own control clients (`tmux -C`, what a tmux newer than
// ControlFor's table gets) are ended with SIGTERM, never SIGKILL (see
// dieWithParent): a wrapper standing in for tmux says which signal it got.
func TestControlClientsEndWithSIGTERM(t *testing.T) {
	s := testkit.NewServer(t)
	ctx := context.Background()
	real, err := exec.LookPath(s.Bin)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "signals")
	wrapper := filepath.Join(dir, "tmux")
	// A background job's stdin is /dev/null unless it comes through
	// another descriptor, and a control client ends on its stdin's EOF.
	// The trap comes first: a SIGTERM that found the shell still starting
	// its child would otherwise end it unlogged. A wrapper whose client
	// ended first (the connection closes its stdin before the SIGTERM,
	// and a loaded machine may let the client see the EOF and exit in
	// between) logs END; only a SIGKILL ends one without a line.
	script := "#!/bin/sh\ntrap 'echo TERM >> " + log + "; kill -TERM $child; wait $child; exit 0' TERM\n" +
		"exec 3<&0\n" + real + " \"$@\" <&3 3<&- &\nchild=$!\nexec 3<&-\n" +
		"wait $child\necho END >> " + log + "\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := New(wrapper, Target{SocketName: s.Name})
	asNewerTmux(t, s, c)
	sid := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{session_id}"))
	if !c.KeepConn(ctx, []string{sid}) {
		t.Fatal("no control connection through the wrapper")
	}
	p := c.NewPusher()
	if n := p.Sync([]string{sid}); n != 1 {
		t.Fatalf("Sync watched %d sessions", n)
	}
	s.WaitFor(func() bool {
		out, _ := s.Run("list-clients", "-F", "#{client_control_mode}")
		return strings.Count(out, "1") == 2
	}, "both control clients attached")
	c.CloseConn()
	p.Close()
	s.WaitFor(func() bool {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "TERM")+strings.Count(string(b), "END") == 2
	}, "both wrappers ended on a SIGTERM (or on their client's own exit), neither killed")
	// The pusher's clients get no EOF first: the SIGTERM is what ends them.
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "TERM") {
		t.Errorf("no wrapper was told of a SIGTERM: %q", b)
	}
	s.WaitFor(func() bool {
		out, _ := s.Run("list-clients", "-F", "#{client_control_mode}")
		return !strings.Contains(out, "1")
	}, "no control client left")
}

// asNewerTmux makes c take its server for a tmux newer than ControlFor's
// table, whose control clients are tmux's own (`tmux -C`).
func asNewerTmux(t *testing.T, s *testkit.Server, c *Client) {
	t.Helper()
	si, err := New(s.Bin, c.Target).Server(context.Background()) // not through a wrapper of c's

	if err != nil {
		t.Fatal(err)
	}
	c.server = ServerInfo{Socket: si.Socket, Version: "3.9"}
	if got := ControlFor("3.9").Mode; got != ControlTmux {
		t.Fatalf("ControlFor(3.9) = %v, want tmux", got)
	}
}
