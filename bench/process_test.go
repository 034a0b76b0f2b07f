package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/testkit"
)

// Spawn budgets: the goals, asserted.
const (
	coldSpawns = 3 // list, one batched capture, one batched write
	warmSpawns = 1 // the list alone, hooked or not
	hookSpawns = 1 // the common event, planned blind
)

// hookDecaySecs replaces the 60 s default for the hooked layouts, so a
// claim is "older than hook_decay_secs" after a short sleep instead of a
// minute.
const hookDecaySecs = 2

// followSecs is how long `tma wait` / `tma subscribe` run between the two
// CPU samples (the interval is the dispatcher's 1 s default).
const followSecs = 20

// kit is what every process measurement shares: the binaries built for this
// run and the environment they run in.
type kit struct {
	dir      string // go build ./cmd/... plus shell/tma as tma
	stubs    string // shell/tma plus a copy of true under every tma-* name
	tools    []string
	tmux     string // the real tmux, absolute
	counter  string // a tmux that logs its argv, then execs the real one
	spawnLog string
	self     string // this test binary, which doubles as the rusage wrapper
	rssLog   string
	core     string   // F's format
	plain    []string // the environment of an unhooked run: no config at all
	hooked   []string // the same with a config holding only hook_decay_secs
	// The CPU of the last paired runs, ms per run, for record: the
	// command's process tree (its rusage, reaped descendants included: the
	// stages and their tmux clients) and the tmux server's (schedstat),
	// and the same of the F runs beside them.
	cpuX, srvX, cpuF, srvF []float64
	servers                map[string]int // socket name → the server's pid
}

// outcome of one measured command, for the summary.
type measured struct {
	what, layout string
	ms, f        float64 // medians; f is the median of the paired F
	n            int
	// CPU medians, ms per run: the command's process tree and the
	// server's, and the paired F's.
	cpu, srv, fcpu, fsrv float64
	spawns               int
	calls                string
}

var (
	results    []measured
	peakRSS    = map[string]rssPeak{} // binary → its largest Maxrss
	cpuTick    = map[string]cpu{}     // "wait" / "subscribe" → CPU ms per tick
	dispatch   struct{ d, p, s float64 }
	overBudget []string
	procHeader string
)

// cpu is CPU ms per tick: all is every process of the pipeline and the
// tmux clients it spawned; stages leaves the clients out.
type cpu struct{ all, stages float64 }

type rssPeak struct {
	kb    int64
	where string
}

// BenchmarkProcess measures what users run: whole processes (the dispatcher,
// the filters glued by a real sh pipeline, the hook an agent calls), each
// divided by F, one bare `tmux list-panes -a -F <the cycle's core fields>`
// spawned as a process beside it. It also counts tmux spawns per command
// (and fails when a command spawns more than its budget), the peak RSS of
// every binary, the dispatcher's own cost and the CPU a long-running
// `tma wait` / `tma subscribe` spends per tick. See docs/performance.md.
func BenchmarkProcess(b *testing.B) {
	tmuxBin, err := exec.LookPath(testkit.TmuxBin())
	if err != nil {
		b.Skipf("tmux %q not installed", testkit.TmuxBin())
	}
	tmuxBin, _ = filepath.Abs(tmuxBin)
	k := newKit(b, tmuxBin)
	ver, _ := exec.Command(tmuxBin, "-V").Output()
	procHeader = fmt.Sprintf("%s, %d vCPU, GOMAXPROCS=%d, %s/%s, %s", strings.TrimSpace(string(ver)), runtime.NumCPU(),
		runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02T15:04Z"))

	b.Run("dispatcher", func(b *testing.B) { k.dispatcher(b) })

	agentBin, screen := fakeClaude(b)
	load0 := loadavg()
	for _, sz := range sizes {
		r := newRig(b, sz, tmuxBin, agentBin, screen, nil)
		k.layout(b, r)
		r.kill()
	}
	procHeader += fmt.Sprintf(", loadavg %s before, %s after", load0, loadavg())
}

func newKit(b *testing.B, tmuxBin string) *kit {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	tmp := b.TempDir()
	k := &kit{dir: filepath.Join(tmp, "bin"), stubs: filepath.Join(tmp, "stubs"), tmux: tmuxBin,
		counter: filepath.Join(tmp, "tmux-count"), spawnLog: filepath.Join(tmp, "spawns"),
		rssLog: filepath.Join(tmp, "rss")}
	// Whatever the tree builds now: other work changes the binaries and
	// the dispatcher while this benchmark stays the same.
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", k.dir+"/", "./cmd/...")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build links them: static
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	ents, err := os.ReadDir(k.dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "tma-") {
			k.tools = append(k.tools, e.Name())
		}
	}
	disp, err := os.ReadFile(filepath.Join(root, "shell", "tma"))
	if err != nil {
		b.Fatal(err)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatalf("no true on PATH for the dispatcher's stubs: %v", err)
	}
	trueExe, err := os.ReadFile(truePath)
	if err != nil {
		b.Fatal(err)
	}
	write := func(path string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	write(filepath.Join(k.dir, "tma"), disp)
	write(filepath.Join(k.stubs, "tma"), disp)
	for _, t := range k.tools {
		write(filepath.Join(k.stubs, t), trueExe)
	}
	// \036 separates the records: an argument may hold a newline.
	write(k.counter, []byte("#!/bin/sh\nprintf '%s\\036' \"$*\" >>\"$TMA_BENCH_SPAWNLOG\"\nexec "+shq(tmuxBin)+" \"$@\"\n"))
	if k.self, err = os.Executable(); err != nil {
		b.Fatal(err)
	}
	k.core, _ = coreFormat()

	home := filepath.Join(tmp, "home")
	cfg := filepath.Join(tmp, "cfg")
	run := filepath.Join(tmp, "run")
	for _, d := range []string{home, filepath.Join(cfg, "tma"), run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	conf := filepath.Join(cfg, "tma", "config.toml")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "[fold]\nhook_decay_secs = %d\n", hookDecaySecs), 0o644); err != nil {
		b.Fatal(err)
	}
	var base []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TMA_") || strings.HasPrefix(name, "TMUX") || name == "HOME" || name == "XDG_CONFIG_HOME" || name == "XDG_RUNTIME_DIR" {
			continue
		}
		base = append(base, kv)
	}
	base = append(base, "HOME="+home, "XDG_RUNTIME_DIR="+run, "TMA_TMUX_BIN="+tmuxBin)
	k.plain = append(slices.Clip(base), "XDG_CONFIG_HOME="+filepath.Join(tmp, "noconfig"))
	k.hooked = append(slices.Clip(base), "XDG_CONFIG_HOME="+cfg)
	return k
}

// coreFormat is F's format: the 20 core pane fields the cycle's list read
// when issue 10 was filed (the pane, window, session and server fields and
// the title, without tma's @options), one line per pane. It is pinned here
// rather than derived from lib/tmux: the cycle now asks the window and
// server fields once per window and once per call, and F must stay the
// cheapest list of these fields a poller pays, whatever the cycle does.
func coreFormat() (string, int) {
	keep := []string{
		"#{pane_id}", "#{session_name}", "#{session_id}", "#{window_index}", "#{window_id}",
		"#{pane_index}", "#{pane_pid}", "#{pane_current_command}", "#{pane_current_path}",
		"#{pane_width}", "#{pane_height}", "#{alternate_on}", "#{pane_in_mode}",
		"#{scroll_position}", "#{window_activity}", "#{&&:#{pane_active},#{window_active}}",
		"#{pane_dead}", "#{socket_path}", "#{version}", "#{pane_title}",
	}
	return strings.Join(keep, "\x1f"), len(keep)
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// run runs cmd to completion, output kept, and returns how long it took.
func run(b *testing.B, cmd *exec.Cmd) (time.Duration, string) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	lastTreeCPU = treeCPU(cmd.ProcessState)
	if err != nil || errb.Len() > 0 {
		b.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	return d, out.String()
}

func (k *kit) command(env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = env
	return c
}

// f is one bare list-panes of the core fields, spawned as a process.
func (k *kit) f(b *testing.B, r *rig) time.Duration {
	d, out := run(b, exec.Command(k.tmux, "-L", r.sock, "list-panes", "-a", "-F", k.core))
	if n := strings.Count(out, "\n"); n != r.panes {
		b.Fatalf("F listed %d panes, want %d", n, r.panes)
	}
	return d
}

// pipeline is `tma-scan | tma-fold | tma-stamp` as a user would type it,
// every stage given the server, optionally each under the rusage wrapper
// and followed by a tma-view stage.
func (k *kit) pipeline(r *rig, wrap bool, view ...string) string {
	stage := func(tool string, args ...string) string {
		s := shq(filepath.Join(k.dir, tool)) + " -L " + shq(r.sock)
		for _, a := range args {
			s += " " + shq(a)
		}
		if wrap {
			s = shq(k.self) + " " + s
		}
		return s
	}
	s := stage("tma-scan") + " | " + stage("tma-fold") + " | " + stage("tma-stamp")
	if len(view) > 0 {
		s += " | " + stage("tma-view", view...)
	}
	return s
}

// layout measures one server, unhooked and then with every agent pane
// carrying a hook claim older than hook_decay_secs.
func (k *kit) layout(b *testing.B, r *rig) {
	status := func(env []string) *exec.Cmd {
		return k.command(env, filepath.Join(k.dir, "tma"), "-L", r.sock, "status", "--format", "plain")
	}
	ls := func(env []string) *exec.Cmd { return k.command(env, filepath.Join(k.dir, "tma"), "-L", r.sock, "ls") }
	cycle := func(env []string) *exec.Cmd { return k.command(env, "sh", "-c", k.pipeline(r, false)) }

	for _, hooked := range []bool{false, true} {
		env, layout := k.plain, r.name
		if hooked {
			env, layout = k.hooked, r.name+"+hooks"
			k.register(b, r)
		}
		k.settle(b, r, env)
		if out := k.output(b, ls(env)); strings.Count(out, "\n") != r.size.agents {
			b.Fatalf("%s: tma ls lists %d rows, want %d agents:\n%s", layout, strings.Count(out, "\n"), r.size.agents, out)
		}
		b.Run(layout+"/status-warm", func(b *testing.B) { k.warm(b, r, "status", layout, env, status) })
		b.Run(layout+"/ls-warm", func(b *testing.B) { k.warm(b, r, "ls", layout, env, ls) })
		b.Run(layout+"/cycle-warm", func(b *testing.B) { k.warm(b, r, "warm", layout, env, cycle) })
		if !hooked {
			// A cold cycle is a first sighting, which a pane carrying a
			// hook registration never is: measured unhooked only.
			b.Run(layout+"/cycle-cold", func(b *testing.B) { k.cold(b, r, layout, env, cycle) })
			k.rss(b, r, layout, env)
			if r.name == sizes[0].name {
				b.Run(layout+"/wait-cpu", func(b *testing.B) {
					k.follow(b, r, "wait", env, "wait", "--pane", r.agents[len(r.agents)-1], "--until", "working")
				})
				b.Run(layout+"/subscribe-cpu", func(b *testing.B) { k.follow(b, r, "subscribe", env, "subscribe", "--json") })
			}
		} else {
			b.Run(layout+"/hook", func(b *testing.B) { k.hook(b, r, layout, env) })
		}
	}
}

func (k *kit) output(b *testing.B, cmd *exec.Cmd) string {
	_, out := run(b, cmd)
	return out
}

// register gives every agent pane a claude hook registration and a turn
// (SessionStart, UserPromptSubmit, Stop), as a hooked agent would, then
// waits until the claims are older than hook_decay_secs.
func (k *kit) register(b *testing.B, r *rig) {
	for _, p := range r.agents {
		var said strings.Builder
		for _, ev := range [][2]string{
			{"SessionStart", `{"session_id":"` + session(p) + `","source":"startup"}`},
			{"UserPromptSubmit", `{"session_id":"` + session(p) + `","prompt":"run the tests"}`},
			{"Stop", `{"session_id":"` + session(p) + `"}`},
		} {
			c := k.command(append(k.hookEnv(b, r, p), "TMA_HOOK_DEBUG=1"), filepath.Join(k.dir, "tma-hook"), "claude", ev[0])
			c.Stdin = strings.NewReader(ev[1])
			c.Stderr = &said
			if err := c.Run(); err != nil {
				b.Fatalf("tma-hook claude %s: %v\n%s", ev[0], err, said.String())
			}
		}
		if src := k.option(b, r, p, "@agent_source"); src != "hook" {
			b.Fatalf("%s: pane %s is not hook-claimed after a turn (@agent_source %q); tma-hook said:\n%s", r.name, p, src, said.String())
		}
	}
	time.Sleep(time.Duration(hookDecaySecs)*time.Second + 1100*time.Millisecond)
}

// session is the agent session id of a pane's agent: one per agent, as a
// session registered in one pane is that pane's (the hook moves it, as a
// resumed session, when another pane registers it).
func session(pane string) string { return "bench-" + strings.TrimPrefix(pane, "%") }

// hookEnv is what an agent in pane gives its hook: $TMUX and $TMUX_PANE.
func (k *kit) hookEnv(b *testing.B, r *rig, pane string) []string {
	info := strings.Fields(k.output(b, exec.Command(k.tmux, "-L", r.sock, "display", "-p", "-t", pane, "#{socket_path} #{pid}")))
	if len(info) != 2 {
		b.Fatalf("display socket_path pid: %q", info)
	}
	return append(slices.Clip(k.hooked), "TMUX="+info[0]+","+info[1]+",0", "TMUX_PANE="+pane)
}

func (k *kit) option(b *testing.B, r *rig, pane, name string) string {
	return strings.TrimSpace(k.output(b, exec.Command(k.tmux, "-L", r.sock, "show-options", "-pqv", "-t", pane, name)))
}

// settle runs cycles until one captures nothing (window_activity, in whole
// seconds, must fall before the stamps), or gives up after a few: a hooked
// pane may be recaptured on every cycle, which the spawn counts report.
func (k *kit) settle(b *testing.B, r *rig, env []string) {
	for try := 0; ; try++ {
		n, _ := k.count(b, k.command(env, "sh", "-c", k.pipeline(r, false)))
		if n <= warmSpawns || try == 3 {
			return
		}
		time.Sleep(1100 * time.Millisecond)
	}
}

// count runs cmd once with TMA_TMUX_BIN pointing at the counting wrapper and
// returns its tmux spawns and their commands.
func (k *kit) count(b *testing.B, cmd *exec.Cmd) (int, string) {
	if err := os.WriteFile(k.spawnLog, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	cmd.Env = append(slices.Clip(cmd.Env), "TMA_TMUX_BIN="+k.counter, "TMA_BENCH_SPAWNLOG="+k.spawnLog)
	run(b, cmd)
	log, err := os.ReadFile(k.spawnLog)
	if err != nil {
		b.Fatal(err)
	}
	var calls []string
	for rec := range strings.SplitSeq(strings.TrimSuffix(string(log), "\036"), "\036") {
		if rec != "" {
			calls = append(calls, tmuxCommand(rec))
		}
	}
	return len(calls), strings.Join(calls, ", ")
}

// tmuxCommand names the command of one logged tmux argv: the first word
// after the client's own flags.
func tmuxCommand(argv string) string {
	f := strings.Fields(argv)
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "-L", "-S", "-f":
			i++
		default:
			if !strings.HasPrefix(f[i], "-") {
				return f[i]
			}
		}
	}
	return "?"
}

// budget checks a counted run against its spawn budget. A warm cycle may
// also refresh the ambient-driver hint when it is due (at most one write per
// stamp.LastPollEveryMS), which is one spawn more by design.
func (k *kit) budget(b *testing.B, label string, n, limit int, hintDue bool) {
	if hintDue {
		limit++
	}
	if n > limit {
		msg := fmt.Sprintf("%s: %d tmux spawns, budget %d", label, n, limit)
		if !slices.Contains(overBudget, msg) {
			overBudget = append(overBudget, msg)
		}
		b.Error(msg)
	}
}

// hintDue reports whether the next cycle may write @tma_last_poll.
func (k *kit) hintDue(b *testing.B, r *rig) bool {
	v := strings.TrimSpace(k.output(b, exec.Command(k.tmux, "-L", r.sock, "show-options", "-gqv", "@tma_last_poll")))
	at, err := strconv.ParseInt(v, 10, 64)
	return err != nil || time.Now().UnixMilli()-at >= stamp.LastPollEveryMS-1000
}

// paired runs cmd b.N times with a bare F beside each run, alternating
// which goes first, so a change of machine load hits both.
func (k *kit) paired(b *testing.B, r *rig, before func(), cmd func() *exec.Cmd) (x, f []time.Duration) {
	k.cpuX, k.srvX, k.cpuF, k.srvF = nil, nil, nil, nil
	spid := k.serverPID(b, r)
	bareF := func() {
		s0 := serverCPU(spid)
		f = append(f, k.f(b, r))
		k.srvF = append(k.srvF, serverCPU(spid)-s0)
		k.cpuF = append(k.cpuF, lastTreeCPU)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if before != nil {
			before()
		}
		if i%2 == 0 {
			bareF()
		}
		c := cmd()
		s0 := serverCPU(spid)
		b.StartTimer()
		d, _ := run(b, c)
		b.StopTimer()
		k.srvX = append(k.srvX, serverCPU(spid)-s0)
		k.cpuX = append(k.cpuX, lastTreeCPU)
		x = append(x, d)
		if i%2 == 1 {
			bareF()
		}
	}
	return x, f
}

// lastTreeCPU is the CPU of the process tree run last ran, ms: wait4's
// rusage, which counts the descendants the child reaped.
var lastTreeCPU float64

func treeCPU(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	return float64(ps.UserTime()+ps.SystemTime()) / float64(time.Millisecond)
}

// serverCPU is the time the process pid has spent on a CPU, ms, from the
// first field of /proc/<pid>/schedstat (nanoseconds, unlike stat's clock
// ticks); 0 where there is none.
func serverCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	ns, _ := strconv.ParseInt(f[0], 10, 64)
	return float64(ns) / 1e6
}

func (k *kit) serverPID(b *testing.B, r *rig) int {
	if pid, ok := k.servers[r.sock]; ok {
		return pid
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(k.output(b, exec.Command(k.tmux, "-L", r.sock, "display", "-p", "#{pid}"))))
	if k.servers == nil {
		k.servers = map[string]int{}
	}
	k.servers[r.sock] = pid
	return pid
}

func (k *kit) record(b *testing.B, what, layout string, x, f []time.Duration, spawns int, calls string) {
	m := measured{what: what, layout: layout, ms: median(x), f: median(f), n: len(x), spawns: spawns, calls: calls,
		cpu: medianF(k.cpuX), srv: medianF(k.srvX), fcpu: medianF(k.cpuF), fsrv: medianF(k.srvF)}
	b.ReportMetric(m.ms, "med-ms")
	b.ReportMetric(m.f, "F-ms")
	b.ReportMetric(m.ms/m.f, "xF")
	b.ReportMetric(float64(spawns), "spawns")
	results = slices.DeleteFunc(results, func(o measured) bool { return o.what == what && o.layout == layout })
	results = append(results, m)
}

// warm measures a command on a fleet whose stamps are fresh: nothing changed
// since the last cycle. One run first (which refreshes the poll hint if
// due), the paired runs, then one counted run against the warm budget.
func (k *kit) warm(b *testing.B, r *rig, what, layout string, env []string, cmd func([]string) *exec.Cmd) {
	run(b, cmd(env))
	x, f := k.paired(b, r, nil, func() *exec.Cmd { return cmd(env) })
	due := k.hintDue(b, r)
	n, calls := k.count(b, cmd(env))
	k.budget(b, layout+": "+map[string]string{"status": "tma status", "ls": "tma ls", "warm": "the cycle"}[what]+", warm", n, warmSpawns, due)
	k.record(b, what, layout, x, f, n, calls)
}

// cold measures the cycle as a first sighting: every stamp unset before each
// run (outside the timer), every agent captured and written (checked after
// each run).
func (k *kit) cold(b *testing.B, r *rig, layout string, env []string, cmd func([]string) *exec.Cmd) {
	check := func() {
		out := k.output(b, exec.Command(k.tmux, "-L", r.sock, "list-panes", "-a", "-F", "#{pane_id} #{@agent_state}"))
		idle := 0
		for l := range strings.SplitSeq(out, "\n") {
			if p, st, ok := strings.Cut(l, " "); ok && st == "idle" && slices.Contains(r.agents, p) {
				idle++
			}
		}
		if idle != r.size.agents {
			b.Fatalf("a cold cycle left %d of %d agents idle-stamped", idle, r.size.agents)
		}
	}
	var x, f []time.Duration
	first := true
	before := func() {
		if !first {
			check()
		}
		first = false
		r.clear(b)
	}
	x, f = k.paired(b, r, before, func() *exec.Cmd { return cmd(env) })
	check()
	r.clear(b)
	n, calls := k.count(b, cmd(env))
	check()
	k.budget(b, layout+": the cycle, cold", n, coldSpawns, false)
	k.record(b, "cold", layout, x, f, n, calls)
}

// hook measures tma-hook claude <event> on a registered agent pane,
// alternating a prompt and a turn end as a working agent does.
func (k *kit) hook(b *testing.B, r *rig, layout string, env []string) {
	pane := r.agents[0]
	henv := k.hookEnv(b, r, pane)
	events := [][2]string{
		{"UserPromptSubmit", `{"session_id":"` + session(pane) + `","prompt":"run the tests"}`},
		{"Stop", `{"session_id":"` + session(pane) + `"}`},
	}
	i := 0
	cmd := func() *exec.Cmd {
		ev := events[i%2]
		i++
		c := k.command(henv, filepath.Join(k.dir, "tma-hook"), "claude", ev[0])
		c.Stdin = strings.NewReader(ev[1])
		return c
	}
	x, f := k.paired(b, r, nil, cmd)
	n, calls := k.count(b, cmd())
	want := map[string]string{"UserPromptSubmit": "working", "Stop": "idle"}[events[(i-1)%2][0]]
	if got := k.option(b, r, pane, "@agent_state"); got != want || k.option(b, r, pane, "@agent_source") != "hook" {
		b.Fatalf("after %s the hook left @agent_state %q (source %q), want %q from the hook", events[(i-1)%2][0], got, k.option(b, r, pane, "@agent_source"), want)
	}
	k.budget(b, layout+": tma-hook", n, hookSpawns, false)
	k.record(b, "hook", layout, x, f, n, calls)
	c := cmd()
	c.Env = append(slices.Clip(c.Env), "TMA_BENCH_RUSAGE="+k.rssLog)
	c.Args = append([]string{k.self}, c.Args...)
	c.Path = k.self
	k.collectRSS(b, layout+" tma-hook", func() { run(b, c) })
}

// rss runs the cold and the warm pipeline once more with every stage under
// the rusage wrapper and keeps each binary's largest Maxrss.
func (k *kit) rss(b *testing.B, r *rig, layout string, env []string) {
	wrapped := func(view ...string) *exec.Cmd {
		return k.command(append(slices.Clip(env), "TMA_BENCH_RUSAGE="+k.rssLog), "sh", "-c", k.pipeline(r, true, view...))
	}
	r.clear(b)
	k.collectRSS(b, layout+" cold status", func() { run(b, wrapped("status", "--format", "plain")) })
	time.Sleep(1100 * time.Millisecond) // past the stamps' second: warm again
	k.collectRSS(b, layout+" warm ls", func() { run(b, wrapped("ls")) })
}

func (k *kit) collectRSS(b *testing.B, where string, fn func()) {
	if err := os.WriteFile(k.rssLog, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	fn()
	data, err := os.ReadFile(k.rssLog)
	if err != nil {
		b.Fatal(err)
	}
	for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		name, kb, ok := strings.Cut(l, " ")
		n, err := strconv.ParseInt(kb, 10, 64)
		if !ok || err != nil {
			b.Fatalf("rusage log line %q", l)
		}
		keepRSS(name, n, where)
	}
}

func keepRSS(name string, kb int64, where string) {
	if p, ok := peakRSS[name]; !ok || kb > p.kb {
		peakRSS[name] = rssPeak{kb, where}
	}
}

// follow runs `tma wait` or `tma subscribe` through the dispatcher for
// followSecs and reads the CPU every process of its process group spent
// (utime+stime, and the same of its reaped children: the tmux clients),
// per tick of the 1 s interval, and each process's peak RSS (VmHWM).
func (k *kit) follow(b *testing.B, r *rig, what string, env []string, args ...string) {
	if v, ok := cpuTick[what]; ok {
		// Measured on the b.N=1 pass: a window is followSecs long, not an
		// iteration, so the b.N pass reports it again.
		b.ReportMetric(v.all, "cpu-ms/tick")
		b.ReportMetric(v.stages, "stages-cpu-ms/tick")
		return
	}
	c := k.command(env, filepath.Join(k.dir, "tma"), append([]string{"-L", r.sock}, args...)...)
	c.Stdout = io.Discard
	var errb bytes.Buffer
	c.Stderr = &errb
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	pgid := c.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	defer func() {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // any stage that outlived the pipeline
	}()
	alive := func() {
		select {
		case err := <-exited:
			b.Fatalf("tma %s ended early: %v\n%s", what, err, errb.String())
		default:
		}
	}
	time.Sleep(3 * time.Second) // start-up, the first cycles, control clients attached
	alive()
	t0, own0, kids0, _ := groupCPU(pgid)
	time.Sleep(followSecs * time.Second)
	alive()
	t1, own1, kids1, procs := groupCPU(pgid)
	ticks := t1.Sub(t0).Seconds() // one cycle per second of the interval
	perTick := func(n int64) float64 { return float64(n) * 1000 / float64(clockTicks()) / ticks }
	per := cpu{all: perTick(own1 + kids1 - own0 - kids0), stages: perTick(own1 - own0)}
	cpuTick[what] = per
	for _, p := range procs {
		if strings.HasPrefix(p.comm, "tma-") {
			keepRSS(p.comm, p.hwm, r.name+" "+what)
		}
	}
	b.ReportMetric(per.all, "cpu-ms/tick")
	b.ReportMetric(per.stages, "stages-cpu-ms/tick")
	b.ReportMetric(float64(len(procs)), "procs")
}

type groupProc struct {
	comm string
	hwm  int64 // kB
}

// groupCPU sums, in clock ticks, utime+stime (own) and cutime+cstime
// (kids) over every live process of the process group. A stage's reaped
// children (each cycle's tmux clients) are in its cutime/cstime; the stages
// themselves are alive, so nothing is counted twice.
func groupCPU(pgid int) (now time.Time, own, kids int64, procs []groupProc) {
	now = time.Now()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < 0 {
			continue
		}
		f := strings.Fields(s[end+1:]) // f[0] is field 3, the state
		if len(f) < 15 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		n := func(i int) int64 { v, _ := strconv.ParseInt(f[i], 10, 64); return v }
		own += n(11) + n(12)  // utime stime
		kids += n(13) + n(14) // cutime cstime
		procs = append(procs, groupProc{comm: s[open+1 : end], hwm: vmHWM(pid)})
	}
	return now, own, kids, procs
}

func vmHWM(pid int) int64 {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// clockTicks is the kernel's USER_HZ, from the auxiliary vector (AT_CLKTCK).
func clockTicks() int64 {
	if aux, err := os.ReadFile("/proc/self/auxv"); err == nil {
		for i := 0; i+16 <= len(aux); i += 16 {
			if binary.NativeEndian.Uint64(aux[i:]) == 17 {
				return int64(binary.NativeEndian.Uint64(aux[i+8:]))
			}
		}
	}
	return 100
}

// dispatcher measures the dispatcher's own cost: `tma status` where every
// tma-* binary is a copy of true, against the same three stubs run as a bare
// `sh -c` pipeline (what the dispatcher has to start at the least) and one
// stub alone.
func (k *kit) dispatcher(b *testing.B) {
	stub := func(t string) string { return shq(filepath.Join(k.stubs, t)) + " -L x" }
	cmds := []func() *exec.Cmd{
		func() *exec.Cmd {
			return k.command(k.plain, filepath.Join(k.stubs, "tma"), "-L", "x", "status", "--format", "plain")
		},
		func() *exec.Cmd {
			return k.command(k.plain, "sh", "-c", stub("tma-scan")+" | "+stub("tma-stamp")+" --folds | "+stub("tma-view")+" status --format plain")
		},
		func() *exec.Cmd { return k.command(k.plain, filepath.Join(k.stubs, "tma-view"), "status") },
	}
	d := make([][]time.Duration, len(cmds))
	for _, c := range cmds {
		run(b, c()) // warm-up
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range cmds {
			c := (i + j) % len(cmds) // rotate the order
			t, _ := run(b, cmds[c]())
			d[c] = append(d[c], t)
		}
	}
	b.StopTimer()
	dispatch.d, dispatch.p, dispatch.s = median(d[0]), median(d[1]), median(d[2])
	b.ReportMetric(dispatch.d, "tma-ms")
	b.ReportMetric(dispatch.p, "sh-pipe-ms")
	b.ReportMetric(dispatch.s, "stub-ms")
	b.ReportMetric(dispatch.d-dispatch.p, "own-ms")
}

// rusageWrap is this test binary run as the rusage wrapper (TestMain, with
// TMA_BENCH_RUSAGE set): it runs argv with the same stdio, then appends
// "<name> <Maxrss kB>" to the log and exits as the child did.
func rusageWrap(log string, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "bench rusage wrapper: no command")
		return 2
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMA_BENCH_RUSAGE=") })
	err := c.Run()
	if c.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "bench rusage wrapper: %v\n", err)
		return 127
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			// One short O_APPEND write: the stages of a pipeline append at once.
			_, _ = fmt.Fprintf(f, "%s %d\n", filepath.Base(argv[0]), ru.Maxrss)
			_ = f.Close()
		}
	}
	return c.ProcessState.ExitCode()
}

// goals are the table (stated at 40 panes / 10 agents), as ×F.
var goals = []struct {
	what, label string
	xF          float64
	goal        string
}{
	{"status", "`tma status --format plain`, warm", 3, "≤ 3×F"},
	{"ls", "`tma ls`, warm", 3.5, "≤ 3.5×F"},
	{"cold", "`tma-scan \\| tma-fold \\| tma-stamp`, cold", 3, "≤ 3×F"},
	{"warm", "`tma-scan \\| tma-fold \\| tma-stamp`, warm", 2, "≤ 2×F"},
	{"hook", "`tma-hook claude <event>`, registered pane", 1.5, "≤ 1.5×F"},
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// processSummary is the table `make bench` ends with.
func processSummary() string {
	if len(results) == 0 && dispatch.d == 0 {
		return ""
	}
	var w strings.Builder
	_, nCore := coreFormat()
	fmt.Fprintf(&w, "\n## Whole processes, as users run them\n\n%s\n", procHeader)
	fmt.Fprintf(&w, "Medians of %d runs, ms; ×F = median ÷ the median of the F runs paired with them (F = `tmux list-panes -a -F` of the cycle's %d core fields, spawned as a process). Hooked: every agent pane carries a claude hook claim older than hook_decay_secs. Speed is reported, never asserted; the spawn counts are.\n\n",
		runsOf(), nCore)
	w.WriteString("| what | layout | ms | F ms | ×F | tmux spawns | goal | met |\n|---|---|---|---|---|---|---|---|\n")
	for _, g := range goals {
		for _, m := range results {
			if m.what != g.what {
				continue
			}
			x := m.ms / m.f
			fmt.Fprintf(&w, "| %s | %s | %.2f | %.2f | %.2f | %d (%s) | %s | %s |\n", g.label, m.layout, m.ms, m.f, x, m.spawns, m.calls, g.goal, yes(x <= g.xF))
		}
	}
	for _, m := range results {
		if m.what == "warm" && strings.HasSuffix(m.layout, "+hooks") {
			fmt.Fprintf(&w, "| tmux spawns of a warm cycle, hook claims older than hook_decay_secs | %s | | | | %d | %d | %s |\n", m.layout, m.spawns, warmSpawns, yes(m.spawns <= warmSpawns))
		}
	}
	if dispatch.d > 0 {
		own := dispatch.d - dispatch.p
		fmt.Fprintf(&w, "| dispatcher's own cost: `tma status` with stub binaries (%.2f ms) − the same three stubs as a bare `sh -c` pipeline (%.2f ms); one stub alone %.2f ms | – | %.2f | | | | ≤ 1 ms | %s |\n",
			dispatch.d, dispatch.p, dispatch.s, own, yes(own <= 1))
	}
	for _, what := range []string{"wait", "subscribe"} {
		if v, ok := cpuTick[what]; ok {
			fmt.Fprintf(&w, "| `tma %s`, CPU per 1 s tick over %d s: every process of the pipeline and the tmux clients it spawned (the stages alone: %.2f ms) | %s | %.2f | | | | ≤ 4 ms | %s |\n",
				what, followSecs, v.stages, sizes[0].name, v.all, yes(v.all <= 4))
		}
	}
	names := make([]string, 0, len(peakRSS))
	for n := range peakRSS {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := peakRSS[n]
		mb := float64(p.kb) / 1024
		fmt.Fprintf(&w, "| peak RSS `%s` (largest, in %s) | – | %.1f MB | | | | ≤ 15 MB | %s |\n", n, p.where, mb, yes(mb <= 15))
	}
	w.WriteString("\nCPU per run, medians, ms: the command's process tree (wait4's rusage: the shell, every stage and the tmux clients they reaped) and the tmux server's (`/proc/<pid>/schedstat`), beside the same of the F runs paired with it. On two cores a command cannot finish in less than half its total.\n\n")
	w.WriteString("| what | layout | tree | server | total | F tree | F server | F total | total ÷ F total |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range goals {
		for _, m := range results {
			if m.what != g.what || m.fcpu+m.fsrv == 0 {
				continue
			}
			fmt.Fprintf(&w, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", g.label, m.layout, m.cpu, m.srv, m.cpu+m.srv, m.fcpu, m.fsrv, m.fcpu+m.fsrv, (m.cpu+m.srv)/(m.fcpu+m.fsrv))
		}
	}
	if len(overBudget) > 0 {
		w.WriteString("\nover the spawn budget (the benchmark fails):\n")
		for _, m := range overBudget {
			w.WriteString("- " + m + "\n")
		}
	}
	return w.String()
}

func runsOf() int {
	n := 0
	for _, m := range results {
		n = max(n, m.n)
	}
	return n
}

// medianF is the median of v as median takes it, 0 for none.
func medianF(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
