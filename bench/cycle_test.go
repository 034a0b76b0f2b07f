// Package bench measures what tma costs against real, isolated tmux
// servers. Run it with `make bench` (see docs/performance.md).
//
// BenchmarkProcess (process_test.go) times what users run, whole processes.
// BenchmarkCycle (this file) is an in-process diagnosis nobody runs as
// such: scan.Run (one list call, the /proc walk, one batched capture) +
// lib/fold.Fold per pane + stamp.Build + Client.Exec of the plan, all in
// this process, so the only processes spawned are tmux clients; its phases
// show which part of a cycle costs what.
package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// maxSpawns is the spawn budget of one cycle, whatever the pane count:
// list, capture, write.
const maxSpawns = 3

// claudeIdle is a Claude Code screen at rest: the end of a turn, the prompt
// box (rule, ❯ line, rule) and the footer. The bundled claude manifest folds
// it to idle (checked in-process before any server starts).
var claudeIdle = strings.Join([]string{
	"> run the unit tests and fix whatever fails",
	"",
	"● I'll run the test suite first.",
	"",
	"● Bash(go test ./...)",
	"  ⎿  ok   github.com/example/app/lib/parse   0.012s",
	"     ok   github.com/example/app/lib/render  0.034s",
	"     … +12 lines (ctrl+o to expand)",
	"",
	"● All packages pass; nothing needed fixing.",
	"",
	"✻ Worked for 14s",
	"",
	strings.Repeat("─", 80),
	"❯ ",
	strings.Repeat("─", 80),
	"  ? for shortcuts",
}, "\n") + "\n"

// size is one server layout: windows of perWindow panes, the first pane of
// each window a fake agent, the rest plain sh.
type size struct {
	name          string
	panes, agents int
}

var sizes = []size{{"40p10a", 40, 10}, {"200p50a", 200, 50}}

// rig is one isolated server and the client a cycle uses.
type rig struct {
	size
	bin      string
	sock     string
	c        *tmux.Client // the measured client
	admin    *tmux.Client // setup and stamp clearing, never measured
	ms       *manifest.Set
	agents   []string // agent pane ids
	windows  []string
	sessions []string
	lastPoll int64 // @tma_last_poll as the last committing cycle wrote it
}

var serial atomic.Int64

func nowMS() int64 { return time.Now().UnixMilli() }

// stats are the medians of one run, keyed "<size>/<what>".
var (
	medMS   = map[string]float64{}
	pairedF = map[string]float64{} // median of the F paired with a cycle
	spawns  = map[string]int{}
)

func newRig(b *testing.B, sz size, bin, agentBin, screen string, ms *manifest.Set) *rig {
	b.Helper()
	r := &rig{size: sz, bin: bin, ms: ms,
		sock: fmt.Sprintf("tmabench-%d-%d", os.Getpid(), serial.Add(1))}
	t := tmux.Target{SocketName: r.sock}
	r.c = tmux.New(bin, t)
	r.admin = tmux.New(bin, t)
	r.admin.Timeout = 60 * time.Second
	ctx := context.Background()
	agentCmd := agentBin + " " + screen + "; exec sh"
	if _, errs, err := r.admin.Run(ctx, "", "-f", "/dev/null", "new-session", "-d", "-s", "s", "-x", "200", "-y", "50", "sh", "-c", agentCmd); err != nil {
		b.Fatalf("start server: %v %s", err, errs)
	}
	b.Cleanup(r.kill)
	per := sz.panes / sz.agents
	var lines []string
	for w := 0; w < sz.agents; w++ {
		if w > 0 {
			lines = append(lines, fmt.Sprintf("new-window -d -t s:%d sh -c %s", w, tmux.Quote(agentCmd)))
		}
		for i := 1; i < per; i++ {
			lines = append(lines, fmt.Sprintf("split-window -d -t s:%d sh", w), fmt.Sprintf("select-layout -t s:%d tiled", w))
		}
	}
	if errs, err := r.admin.Exec(ctx, lines); err != nil || errs != "" {
		b.Fatalf("build layout: %v %s", err, errs)
	}
	// Wait until every pane exists.
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _, err := r.admin.Run(ctx, "", "list-panes", "-a", "-F", "#{pane_id} #{pane_index} #{window_id} #{session_id}")
		if err != nil {
			b.Fatalf("list panes: %v", err)
		}
		r.agents, r.windows, r.sessions = nil, nil, nil
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(l)
			if len(f) != 4 {
				continue
			}
			n++
			if f[1] == "0" { // the first pane of every window runs the agent
				r.agents = append(r.agents, f[0])
			}
			if !slices.Contains(r.windows, f[2]) {
				r.windows = append(r.windows, f[2])
			}
			if !slices.Contains(r.sessions, f[3]) {
				r.sessions = append(r.sessions, f[3])
			}
		}
		if n == sz.panes && len(r.agents) == sz.agents {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: %d panes, %d agents after 60 s", sz.name, n, len(r.agents))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// ...and until every agent has painted its footer.
	for {
		shots, err := r.admin.Capture(ctx, r.agents)
		if err != nil {
			b.Fatalf("capture: %v", err)
		}
		ok := 0
		for _, p := range r.agents {
			if strings.Contains(shots[p], "? for shortcuts") {
				ok++
			}
		}
		if ok == len(r.agents) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: %d of %d agents painted after 60 s", sz.name, ok, len(r.agents))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // let the fake agents settle after start-up
	return r
}

// kill ends the server and removes its socket file, which tmux leaves
// behind.
func (r *rig) kill() {
	path, _ := exec.Command(r.bin, "-L", r.sock, "display", "-p", "#{socket_path}").Output()
	_ = exec.Command(r.bin, "-L", r.sock, "kill-server").Run()
	if p := strings.TrimSpace(string(path)); p != "" {
		_ = os.Remove(p)
	}
}

// clear removes every stamp tma wrote, so the next cycle is a first sighting:
// every agent captured, every tuple, summary and the poll hint written.
func (r *rig) clear(b *testing.B) {
	var lines []string
	for _, p := range r.agents {
		cmds := make([]string, 0, len(tmux.OptionNames))
		for _, o := range tmux.OptionNames {
			cmds = append(cmds, "set -pu -t "+p+" "+o)
		}
		lines = append(lines, strings.Join(cmds, " ; "))
	}
	for _, w := range r.windows {
		lines = append(lines, "set -wu -t "+w+" @agent_summary")
	}
	for _, s := range r.sessions {
		lines = append(lines, "set -u -t "+tmux.Quote(s)+" @agent_session_summary")
	}
	lines = append(lines, "set -gu @tma_last_poll")
	if errs, err := r.admin.Exec(context.Background(), lines); err != nil || errs != "" {
		b.Fatalf("clear stamps: %v %s", err, errs)
	}
}

// outcome is what one cycle did.
type outcome struct {
	res      *scan.Result
	plan     *stamp.Plan
	spawns   int
	captured int
	idle     int // agents published idle this cycle
}

// cycle runs one in-process cycle. withLastPoll feeds stamp.Build the
// @tma_last_poll this rig last wrote when the scan did not report one.
func (r *rig) cycle(ctx context.Context, withLastPoll bool) (*outcome, error) {
	before := r.c.Spawns
	res, err := scan.Run(ctx, r.c, scan.Options{Manifests: r.ms, Tuning: fold.DefaultTuning, Host: "bench", Now: nowMS})
	if err != nil {
		return nil, err
	}
	for _, p := range res.Panes {
		p.Verdict = fold.Fold(p, r.ms.Get(p.Agent), fold.DefaultTuning, false)
	}
	lp := res.Cycle.LastPollMS
	if withLastPoll && lp == 0 {
		lp = r.lastPoll
	}
	plan, err := stamp.Build(res.Cycle, res.Panes, lp)
	if err != nil {
		return nil, err
	}
	if len(plan.Lines) > 0 {
		errs, err := r.c.Exec(ctx, plan.Lines)
		if err != nil {
			return nil, err
		}
		if errs != "" {
			return nil, fmt.Errorf("write: %s", errs)
		}
		if strings.HasPrefix(plan.Lines[len(plan.Lines)-1], "set -g @tma_last_poll ") {
			r.lastPoll = res.Cycle.NowMS
		}
	}
	o := &outcome{res: res, plan: plan, spawns: r.c.Spawns - before}
	for _, p := range res.Panes {
		if p.Capture != nil {
			o.captured++
		}
		if v := p.Verdict; p.Agent != "" && v != nil && v.Action == record.ActPublish && v.State == "idle" {
			o.idle++
		}
	}
	return o, nil
}

// timer records one duration per iteration for the median, and, for the
// cycles, a bare F measured just before each iteration (outside the timer):
// on a shared machine the load changes from second to second, and a ratio
// to an F taken minutes earlier would measure the neighbours.
type timer struct{ d, f []time.Duration }

func (t *timer) median() float64 { return median(t.d) }

func median(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
}

func (r *rig) key(what string) string { return r.name + "/" + what }

// report stores the median and reports it, and its ratio to F: to the F
// paired with the iterations when there is one, else to the F benchmark.
func (r *rig) report(b *testing.B, what string, t *timer) {
	m := t.median()
	medMS[r.key(what)] = m
	b.ReportMetric(m, "med-ms")
	f := medMS[r.key("F")]
	if len(t.f) > 0 {
		f = median(t.f)
		pairedF[r.key(what)] = f
		b.ReportMetric(f, "F-ms")
	}
	if f > 0 && what != "F" {
		b.ReportMetric(m/f, "xF")
	}
}

// bareF is one list-panes -a -F PaneFormat(), spawned through Client.Run
// exactly as the cycle spawns its own calls.
func (r *rig) bareF(b *testing.B, ctx context.Context) time.Duration {
	t0 := time.Now()
	if _, errs, err := r.c.Run(ctx, "", "list-panes", "-a", "-F", tmux.PaneFormat()); err != nil {
		b.Fatalf("%v %s", err, errs)
	}
	return time.Since(t0)
}

// spawnCheck records the spawns of a cycle and fails when they vary between
// iterations or exceed the budget.
func (r *rig) spawnCheck(b *testing.B, what string, n int) {
	k := r.key(what)
	if prev, ok := spawns[k]; ok && prev != n {
		b.Errorf("%s: %d tmux spawns in one cycle, %d in another", k, prev, n)
	}
	spawns[k] = n
	if n > maxSpawns {
		b.Errorf("%s: %d tmux spawns per cycle, budget %d", k, n, maxSpawns)
	}
}

func BenchmarkCycle(b *testing.B) {
	bin := testkit.TmuxBin()
	if _, err := exec.LookPath(bin); err != nil {
		b.Skipf("tmux %q not installed", bin)
	}
	ver, _ := exec.Command(bin, "-V").Output()
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	checkScreen(b, ms)
	agentBin, screen := fakeClaude(b)
	ctx := context.Background()
	for _, sz := range sizes {
		r := newRig(b, sz, bin, agentBin, screen, ms)
		r.benchmarks(b, ctx)
		r.kill()
	}
	summary(b, strings.TrimSpace(string(ver)))
}

// fakeClaude is a private copy of the testkit fake agent, still named
// claude (the shared build cache in the temp dir is not ours to keep
// alive), and the idle screen it paints.
func fakeClaude(b *testing.B) (agentBin, screen string) {
	dir := b.TempDir()
	agentBin = filepath.Join(dir, "claude", "claude")
	exe, err := os.ReadFile(testkit.FakeAgent(b, "claude"))
	if err == nil {
		err = os.MkdirAll(filepath.Dir(agentBin), 0o755)
	}
	if err == nil {
		err = os.WriteFile(agentBin, exe, 0o755)
	}
	screen = filepath.Join(dir, "claude-idle.txt")
	if err == nil {
		err = os.WriteFile(screen, []byte(claudeIdle), 0o644)
	}
	if err != nil {
		b.Fatal(err)
	}
	return agentBin, screen
}

// checkScreen folds the screen the fake agents paint with the bundled
// claude manifest: it must be idle, or the cold cycle measures nothing real.
func checkScreen(b *testing.B, ms *manifest.Set) {
	a := ms.Get("claude")
	if a == nil {
		b.Fatal("no bundled claude manifest")
	}
	now := nowMS()
	p := &record.Pane{NowMS: now, Pane: "%0", Agent: "claude", Identity: "process", AgentAlive: true,
		ForegroundIsAgent: true, Width: 100, Height: 25, Opts: map[string]string{},
		Capture: &record.Capture{AtMS: now, Text: claudeIdle}}
	if v := fold.Fold(p, a, fold.DefaultTuning, false); v.State != "idle" {
		b.Fatalf("the bench screen folds to %q with the bundled claude manifest, want idle", v.State)
	}
}

func (r *rig) benchmarks(b *testing.B, ctx context.Context) {
	// F: the bare list-panes of the cycle's format, spawned through
	// Client.Run exactly as the cycle spawns its own calls.
	b.Run(r.key("F"), func(b *testing.B) {
		for i := 0; i < 3; i++ {
			r.bareF(b, ctx) // warm-up, untimed
		}
		var t timer
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t.d = append(t.d, r.bareF(b, ctx))
		}
		r.report(b, "F", &t)
	})

	b.Run(r.key("cold"), func(b *testing.B) {
		var t timer
		var sp int
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			r.clear(b)
			t.f = append(t.f, r.bareF(b, ctx))
			b.StartTimer()
			t0 := time.Now()
			o, err := r.cycle(ctx, false)
			d := time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			t.d = append(t.d, d)
			if o.captured != r.size.agents || o.idle != r.size.agents {
				b.Fatalf("cold cycle captured %d and published idle for %d of %d agents", o.captured, o.idle, r.size.agents)
			}
			r.spawnCheck(b, "cold", o.spawns)
			sp = o.spawns
			b.StartTimer()
		}
		r.report(b, "cold", &t)
		b.ReportMetric(float64(sp), "spawns/op")
		if r.name == sizes[len(sizes)-1].name {
			small, big := sizes[0], sizes[len(sizes)-1]
			if c0, ok := medMS[small.name+"/cold"]; ok {
				b.ReportMetric((t.median()-c0)/float64(big.agents-small.agents), "marg-ms/agent")
			}
		}
	})

	warm := func(what string, withLastPoll bool) {
		b.Run(r.key(what), func(b *testing.B) {
			// Stamp every agent, then wait until window_activity (whole
			// seconds) is older than the stamps: nothing left to read.
			for try := 0; ; try++ {
				o, err := r.cycle(ctx, withLastPoll)
				if err != nil {
					b.Fatal(err)
				}
				if o.captured == 0 {
					break
				}
				if try == 5 {
					b.Fatalf("still capturing %d panes after %d stamped cycles: something writes to the panes", o.captured, try)
				}
				time.Sleep(1100 * time.Millisecond)
			}
			var t timer
			var sp int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				t.f = append(t.f, r.bareF(b, ctx))
				b.StartTimer()
				t0 := time.Now()
				o, err := r.cycle(ctx, withLastPoll)
				d := time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				t.d = append(t.d, d)
				if o.captured != 0 {
					b.Fatalf("warm cycle captured %d panes: output during the warm measurement", o.captured)
				}
				r.spawnCheck(b, what, o.spawns)
				sp = o.spawns
				b.StartTimer()
			}
			r.report(b, what, &t)
			b.ReportMetric(float64(sp), "spawns/op")
		})
	}
	// warm: the code path as it stands (stamp.Build gets the scan's
	// LastPollMS). warm-lp: the same with the stored @tma_last_poll fed to
	// stamp.Build, as it would be once scan.Run copies the list's
	// @tma_last_poll into the cycle record.
	warm("warm", false)
	warm("warm-lp", true)

	// Phases of a cold cycle, one tmux call (or the /proc walk) at a time,
	// to see which dominates.
	b.Run(r.key("phase-list"), func(b *testing.B) {
		var t timer
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := r.c.List(ctx); err != nil {
				b.Fatal(err)
			}
			t.d = append(t.d, time.Since(t0))
		}
		r.report(b, "phase-list", &t)
	})
	b.Run(r.key("phase-walk"), func(b *testing.B) {
		var t timer
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := proc.Walk(ctx); err != nil {
				b.Fatal(err)
			}
			t.d = append(t.d, time.Since(t0))
		}
		r.report(b, "phase-walk", &t)
	})
	b.Run(r.key("phase-capture"), func(b *testing.B) {
		var t timer
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			shots, err := r.c.Capture(ctx, r.agents)
			if err != nil {
				b.Fatal(err)
			}
			t.d = append(t.d, time.Since(t0))
			if len(shots) != len(r.agents) {
				b.Fatalf("captured %d of %d", len(shots), len(r.agents))
			}
		}
		r.report(b, "phase-capture", &t)
	})
	b.Run(r.key("phase-write"), func(b *testing.B) {
		// The cold plan, committed after the stamps are cleared again.
		r.clear(b)
		o, err := r.cycle(ctx, false)
		if err != nil {
			b.Fatal(err)
		}
		lines := o.plan.Lines
		var t timer
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			r.clear(b)
			b.StartTimer()
			t0 := time.Now()
			if errs, err := r.c.Exec(ctx, lines); err != nil || errs != "" {
				b.Fatalf("%v %s", err, errs)
			}
			t.d = append(t.d, time.Since(t0))
		}
		r.report(b, "phase-write", &t)
		b.ReportMetric(float64(len(lines)), "lines")
	})

}

// summary prints the table and checks that spawns per cycle do not grow
// with the pane count.
func summary(b *testing.B, version string) {
	if len(medMS) == 0 {
		return
	}
	small, big := sizes[0], sizes[len(sizes)-1]
	for _, what := range []string{"cold", "warm", "warm-lp"} {
		s0, ok0 := spawns[small.name+"/"+what]
		s1, ok1 := spawns[big.name+"/"+what]
		if ok0 && ok1 && s0 != s1 {
			b.Errorf("%s cycle: %d tmux spawns at %d panes, %d at %d panes: not constant", what, s0, small.panes, s1, big.panes)
		}
	}
	var w strings.Builder
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&w, "\n## In-process diagnosis (one Go process running the cycle; not what users run)\n\n%s, GOMAXPROCS=%d, %s, %s/%s, loadavg %s; medians, ms; cycles are divided by the F (the full cycle format, every @option) measured just before each iteration\n\n",
		version, runtime.GOMAXPROCS(0), time.Now().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Fprintf(&w, "| measurement | %s | %s | target |\n|---|---|---|---|\n", small.name, big.name)
	row := func(label, what, target string) {
		fmt.Fprintf(&w, "| %s |", label)
		for _, sz := range []size{small, big} {
			m, ok := medMS[sz.name+"/"+what]
			f := medMS[sz.name+"/F"]
			pf, paired := pairedF[sz.name+"/"+what]
			switch {
			case !ok:
				w.WriteString(" – |")
			case what == "F" || f == 0:
				fmt.Fprintf(&w, " %.2f |", m)
			case paired:
				fmt.Fprintf(&w, " %.2f = %.2f×F (paired F %.2f) |", m, m/pf, pf)
			default:
				fmt.Fprintf(&w, " %.2f (%.2f×F) |", m, m/f)
			}
		}
		fmt.Fprintf(&w, " %s |\n", target)
	}
	row("F: list-panes -a -F PaneFormat() (every field and @option)", "F", "")
	row("cold cycle", "cold", "≤ 3×F")
	row("warm cycle (as built)", "warm", "≤ 1.5×F")
	row("warm cycle, @tma_last_poll fed back", "warm-lp", "≤ 1.5×F")
	row("phase: list (list-panes ; list-clients)", "phase-list", "")
	row("phase: /proc walk", "phase-walk", "")
	row("phase: batched capture of every agent", "phase-capture", "")
	row("phase: batched cold write", "phase-write", "")
	fmt.Fprintf(&w, "| tmux spawns per cycle cold / warm / warm-lp |")
	for _, sz := range []size{small, big} {
		fmt.Fprintf(&w, " %s / %s / %s |", sp(sz.name+"/cold"), sp(sz.name+"/warm"), sp(sz.name+"/warm-lp"))
	}
	fmt.Fprintf(&w, " ≤ %d, constant |\n", maxSpawns)
	c0, ok0 := medMS[small.name+"/cold"]
	c1, ok1 := medMS[big.name+"/cold"]
	f0, f1 := medMS[small.name+"/F"], medMS[big.name+"/F"]
	if ok0 && ok1 {
		da, dp := big.agents-small.agents, big.panes-small.panes
		fmt.Fprintf(&w, "\nmarginal cold cost: %.3f ms per extra agent pane ((cold(%s) − cold(%s)) / %d), i.e. %.3f ms per extra pane of any kind (/ %d); F grows %.3f ms per extra pane\n",
			(c1-c0)/float64(da), big.name, small.name, da, (c1-c0)/float64(dp), dp, (f1-f0)/float64(dp))
	}
	fmt.Print(w.String())
}

func sp(k string) string {
	if n, ok := spawns[k]; ok {
		return strconv.Itoa(n)
	}
	return "–"
}
