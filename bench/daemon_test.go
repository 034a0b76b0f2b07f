package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/testkit"
)

// BenchmarkDaemon measures the daemon tier on a server of 40 panes, 10 of
// them agents (fake claude): a screen change until the daemon has
// committed it (its edge push follows the stamp's write), a hook until the
// daemon has committed it, `tma status` through the dispatcher with a
// daemon as a ratio to F (one bare `tmux list-panes -a -F <core fields>`
// beside each run), and the daemon's RSS and CPU over 60 s of an idle
// fleet, its stages and their tmux clients included, with the tmux
// server's CPU beside it. Then the daemon is restarted on a config with
// `[tmux] control_clients = false` (poll: no control client at all, as
// every follower runs then) and the screen change and the idle minute are
// measured again. See docs/performance.md; nothing here is asserted but
// that the poll daemon holds no control client.
func BenchmarkDaemon(b *testing.B) {
	tmuxBin, err := exec.LookPath(testkit.TmuxBin())
	if err != nil {
		b.Skipf("tmux %q not installed", testkit.TmuxBin())
	}
	dir := b.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", dir+"/", "../cmd/...")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build links them: static
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	disp, err := os.ReadFile("../shell/tma")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tma"), disp, 0o755); err != nil {
		b.Fatal(err)
	}
	run := filepath.Join(b.TempDir(), "run")
	home := b.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TMA_") || strings.HasPrefix(name, "TMUX") || name == "HOME" || name == "XDG_CONFIG_HOME" || name == "XDG_RUNTIME_DIR" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME="+filepath.Join(home, "noconfig"), "TMA_TMUX_BIN="+tmuxBin,
		"PATH="+dir+":"+os.Getenv("PATH"))

	s := testkit.NewServer(b)
	working := "# title: ✳ x\n---\n✶ Pondering… (5s · ↓ 1 tokens)\n\n" + strings.Repeat("─", 40) + "\n❯ \n" + strings.Repeat("─", 40) + "\n"
	blocked := "# title: ✳ x\n---\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n"
	idle := "# title: ✳ x\n---\n● Done.\n\n✻ Worked for 6s\n\n" + strings.Repeat("─", 40) + "\n❯ \n" + strings.Repeat("─", 40) + "\n  ? for shortcuts\n"
	var agents []*testkit.Agent
	for i := 0; i < 10; i++ {
		agents = append(agents, s.StartAgent("claude", working))
	}
	for n := 11; n < 40; n++ { // 40 panes with the first session's
		s.MustRun("new-window", "-d", "-t", "s:", "sh")
	}
	// Resolved once, so the clock starts between the screen file's write
	// and the signal, with no tmux call in between (the fake agent also
	// polls its file every 50 ms).
	pids := map[string]int{}
	for _, a := range agents {
		pids[a.Pane] = dmAgentPID(b, s, a.Pane)
	}
	serverPID, _ := strconv.Atoi(strings.TrimSpace(s.MustRun("display", "-p", "#{pid}")))
	tma := func(args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(dir, "tma"), append([]string{"-L", s.Name}, args...)...)
		c.Env = env
		return c
	}
	if out, err := tma("daemon", "--ensure").CombinedOutput(); err != nil {
		b.Fatalf("daemon --ensure: %v %s", err, out)
	}
	p := daemon.ForEnv(s.Socket, func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return run
		}
		return os.Getenv(k)
	})
	defer func() {
		if r, _ := daemon.Find(p); r != nil {
			_ = r.Stop()
		}
	}()
	dmAwaitCycles(b, p)
	edges := dmSubscribe(b, p)
	core, _ := coreFormat()
	f := func() time.Duration {
		t0 := time.Now()
		if err := exec.Command(tmuxBin, "-L", s.Name, "list-panes", "-a", "-F", core).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}

	// Counted across the runner's passes, so every change is a change.
	changes, hooks := 0, 0
	// screenToCommit times a fake agent's repaint until the daemon's edge
	// for its pane; mode names the daemon's follow (push or poll) in the
	// line it prints. Each change waits 300 ms plus 137·i ms modulo spread
	// after the last edge, which came right after a cycle: with a spread
	// of 1 s the changes land evenly over a poll interval of 1 s or any
	// divisor of it; with the push's 700 ms none would land in the 300 ms
	// just after a tick, the changes a poll keeps waiting longest.
	screenToCommit := func(mode string, goal dmGoal, spread int) func(b *testing.B) {
		return func(b *testing.B) {
			var lat []time.Duration
			screens := []string{blocked, working}
			for range b.N {
				i := changes
				changes++
				a := agents[i%len(agents)]
				time.Sleep(time.Duration(300+137*i%spread) * time.Millisecond) // land at varied points of the interval
				dmDrain(edges)
				if err := os.WriteFile(a.Screen, []byte(screens[(i/len(agents))%2]), 0o644); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				_ = syscall.Kill(pids[a.Pane], syscall.SIGUSR2)
				if !dmAwait(edges, "cycle", a.Pane, 10*time.Second) {
					log, _ := os.ReadFile(p.Log)
					b.Fatalf("no edge for %s\n%s", a.Pane, log)
				}
				lat = append(lat, time.Since(t0))
			}
			dmReportGoal(b, "screen change → committed by the daemon ("+mode+")", lat, goal)
		}
	}
	b.Run("screen-to-commit", screenToCommit(dmMode(b, s, p), dmGoal{p50: 100, p90: 250}, 700))

	b.Run("hook-to-commit", func(b *testing.B) {
		var lat []time.Duration
		events := []string{"UserPromptSubmit", "Stop"}
		for range b.N {
			i := hooks
			hooks++
			a := agents[i%len(agents)]
			dmDrain(edges)
			c := exec.Command(filepath.Join(dir, "tma-hook"), "claude", events[(i/len(agents))%2])
			c.Env = append(slices.Clip(env), "TMA_SOCKET_PATH="+s.Socket, "TMUX_PANE="+a.Pane)
			c.Stdin = strings.NewReader(`{"session_id":"bench-` + strconv.Itoa(i%len(agents)) + `"}`)
			t0 := time.Now()
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
			if !dmAwait(edges, "hook", a.Pane, 5*time.Second) {
				b.Fatalf("the daemon committed no hook for %s (did the hook hand it over?)", a.Pane)
			}
			lat = append(lat, time.Since(t0))
		}
		dmReport(b, "hook → committed by the daemon", lat, 0)
	})

	b.Run("status-via-daemon", func(b *testing.B) {
		var x, fs []time.Duration
		for i := 0; i < b.N; i++ {
			if i%2 == 0 {
				fs = append(fs, f())
			}
			c := tma("status")
			t0 := time.Now()
			out, err := c.Output()
			x = append(x, time.Since(t0))
			if err != nil || !strings.Contains(string(out), "tma:") {
				b.Fatalf("tma status: %v %q", err, out)
			}
			if i%2 == 1 {
				fs = append(fs, f())
			}
		}
		dmReport(b, "tma status through the dispatcher, with a daemon", x, median(fs))
	})

	// idleMinute is the CPU of the daemon's tree (the daemon, its stages, their
	// tmux clients, reaped ones included) and of the tmux server over 60 s
	// of an idle fleet, and the tree's RSS at the end.
	idleMinute := func(mode string) func(b *testing.B) {
		idled := false
		return func(b *testing.B) {
			if idled {
				return // a minute is one measurement, whatever b.N the runner asks for
			}
			idled = true
			r, _ := daemon.Find(p)
			if r == nil {
				b.Fatal("no daemon")
			}
			// An idle fleet: every agent at rest (a working pane is re-read
			// every cycle, by design), nothing repainting.
			for _, a := range agents {
				os.WriteFile(a.Screen, []byte(idle), 0o644)
			}
			time.Sleep(6 * time.Second) // past the dwell, and the captures that settle it
			tick := dmTicks()
			cpu0, srv0 := dmCPU(r.PID), serverCPU(serverPID)
			t0 := time.Now()
			time.Sleep(60 * time.Second)
			cpu1, srv1 := dmCPU(r.PID), serverCPU(serverPID)
			wall := time.Since(t0).Seconds()
			pct := float64(cpu1-cpu0) / tick / wall * 100
			srv := (srv1 - srv0) / 1000 / wall * 100
			rss, each := dmRSS(r.PID)
			b.ReportMetric(pct, "cpu-%")
			b.ReportMetric(srv, "server-cpu-%")
			b.ReportMetric(float64(rss)/1024, "rss-MB")
			fmt.Printf("\ndaemon idle (%s) over %.0f s, 40 panes/10 agents: CPU %.2f %% of one core (daemon, stages, their tmux clients), tmux server %.2f %%; RSS %.1f MB (%s)\n", mode, wall, pct, srv, float64(rss)/1024, each)
		}
	}
	b.Run("idle-60s", idleMinute(dmMode(b, s, p)))

	// Poll: the same daemon on [tmux] control_clients = false, which every
	// follower then honours (no control-mode client at all).
	poll := filepath.Join(home, "poll.toml")
	if err := os.WriteFile(poll, []byte("[tmux]\ncontrol_clients = false\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := tma("--config", poll, "daemon", "--restart").CombinedOutput(); err != nil {
		b.Fatalf("daemon --restart on %s: %v %s", poll, err, out)
	}
	dmAwaitCycles(b, p)
	for deadline := time.Now().Add(5 * time.Second); dmControlClients(b, s) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("the daemon on control_clients = false left %d control clients attached", dmControlClients(b, s))
		}
	}
	edges = dmSubscribe(b, p)
	b.Run("screen-to-commit-poll", screenToCommit(dmMode(b, s, p), dmGoal{p50: 500}, 1000))
	b.Run("idle-60s-poll", idleMinute(dmMode(b, s, p)))
}

// dmAwaitCycles waits for the daemon's third cycle.
func dmAwaitCycles(b *testing.B, p daemon.Paths) {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if h, _ := daemon.Ask(p, time.Second); h != nil && h.Cycles > 2 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("the daemon ran no cycle")
		}
	}
}

// dmMode names how the running daemon follows its server, for the lines
// printed: "push" or "poll", the control clients attached to the server,
// and the interval its scan was started with.
func dmMode(b *testing.B, s *testkit.Server, p daemon.Paths) string {
	n := dmControlClients(b, s)
	mode := "push"
	if n == 0 {
		mode = "poll"
	}
	interval := "?"
	if r, _ := daemon.Find(p); r != nil {
		for _, pid := range dmTree(r.PID) {
			cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			args := strings.Split(string(cmd), "\x00")
			if len(args) == 0 || filepath.Base(args[0]) != "tma-scan" {
				continue
			}
			if i := slices.Index(args, "--interval"); i >= 0 && i+1 < len(args) {
				interval = args[i+1]
			}
		}
	}
	return fmt.Sprintf("%s: %d control clients, scan --interval %s", mode, n, interval)
}

// dmControlClients counts the control-mode clients attached to the server.
func dmControlClients(b *testing.B, s *testkit.Server) int {
	out, err := s.Run("list-clients", "-F", "#{client_control_mode}")
	if err != nil {
		b.Fatal(err)
	}
	return strings.Count(out, "1")
}

// dmAgentPID is the fake agent under pane's shell.
func dmAgentPID(b *testing.B, s *testkit.Server, pane string) int {
	shell := strings.TrimSpace(s.MustRun("display", "-p", "-t", pane, "#{pane_pid}"))
	out, _ := exec.Command("pgrep", "-P", shell, "-x", "claude").Output()
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if pid <= 0 {
		b.Fatalf("no agent under %s", pane)
	}
	return pid
}

// dmSubscribe opens a subscribe connection: one value per edge.
func dmSubscribe(b *testing.B, p daemon.Paths) <-chan daemon.Edge {
	_, c, err := daemon.Call(p.Socket, daemon.Request{Verb: daemon.VerbSubscribe}, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	c.SetDeadline(time.Time{})
	out := make(chan daemon.Edge, 64)
	go func() {
		for {
			var e daemon.Edge
			if err := c.ReadLine(&e); err != nil {
				close(out)
				return
			}
			out <- e
		}
	}()
	b.Cleanup(c.Close)
	return out
}

func dmDrain(ch <-chan daemon.Edge) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func dmAwait(ch <-chan daemon.Edge, kind, pane string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return false
			}
			if e.Edge == kind && slices.Contains(e.Panes, pane) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func dmReport(b *testing.B, what string, lat []time.Duration, f float64) {
	dmReportGoal(b, what, lat, dmGoal{f: f})
}

// dmGoal is what a latency line is held against, in its text only: p50
// and p90 bounds in ms (0: none), and F for a ratio.
type dmGoal struct{ p50, p90, f float64 }

func dmReportGoal(b *testing.B, what string, lat []time.Duration, g dmGoal) {
	if len(lat) == 0 {
		return
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	q := func(pct int) float64 { return float64(s[(len(s)*pct)/100].Microseconds()) / 1000 }
	p50, p90, p99 := q(50), q(90), q(99)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p90, "p90-ms")
	b.ReportMetric(p99, "p99-ms")
	line := fmt.Sprintf("%s: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms over %d", what, p50, p90, p99, len(s))
	if g.f > 0 {
		b.ReportMetric(p50/g.f, "xF")
		line += fmt.Sprintf("; F %.1f ms, %.2f×F", g.f, p50/g.f)
	}
	if g.p50 > 0 || g.p90 > 0 {
		var goal []string
		met := true
		if g.p50 > 0 {
			goal = append(goal, fmt.Sprintf("p50 ≤ %.0f ms", g.p50))
			met = met && p50 <= g.p50
		}
		if g.p90 > 0 {
			goal = append(goal, fmt.Sprintf("p90 ≤ %.0f ms", g.p90))
			met = met && p90 <= g.p90
		}
		line += fmt.Sprintf("; goal %s: %s", strings.Join(goal, ", "), map[bool]string{true: "met", false: "not met"}[met])
	}
	if b.N > 1 {
		fmt.Printf("\n%s\n", line)
	}
}

// dmTree is the daemon's pid and every descendant (stages, their tmux
// control clients).
func dmTree(root int) []int {
	children := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// dmCPU is the CPU ticks of the tree, reaped children (one-shot tmux
// calls) included.
func dmCPU(root int) int64 {
	var n int64
	for _, pid := range dmTree(root) {
		st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
			if i < len(f) {
				v, _ := strconv.ParseInt(f[i], 10, 64)
				n += v
			}
		}
	}
	return n
}

// dmRSS is the daemon's and its stages' resident KiB (the tmux control
// clients are tmux's, not tma's), in all and per process.
func dmRSS(root int) (int64, string) {
	var kb int64
	var each []string
	for _, pid := range dmTree(root) {
		comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
		if !strings.HasPrefix(string(comm), "tma-") {
			continue
		}
		f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
				n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
				kb += n
				each = append(each, fmt.Sprintf("%s %.1f", strings.TrimSpace(string(comm)), float64(n)/1024))
			}
		}
		f.Close()
	}
	return kb, strings.Join(each, ", ")
}

// dmTicks is the kernel's clock ticks per second (USER_HZ, 100 on Linux).
func dmTicks() float64 { return 100 }
