package integration

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// cycle runs one in-process cycle at a chosen time and returns its plan
// without executing it.
func plan(t *testing.T, c *tmux.Client, ms *manifest.Set, now int64) *stamp.Plan {
	t.Helper()
	res, err := scan.Run(context.Background(), c, scan.Options{Manifests: ms, Tuning: fold.DefaultTuning, Host: "h",
		Now: func() int64 { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Panes {
		p.Verdict = fold.Fold(p, ms.Get(p.Agent), fold.DefaultTuning, false)
	}
	pl, err := stamp.Build(res.Cycle, res.Panes, res.Cycle.LastPollMS) // as tma-stamp does
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

func load(t *testing.T) *manifest.Set {
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func client(s *testkit.Server) *tmux.Client {
	return tmux.New(s.Bin, tmux.Target{SocketPath: s.Socket})
}

func TestTwoProducersRaceOnePane(t *testing.T) {
	s := testkit.NewServer(t)
	a := s.StartAgent("claude", claudeWorking)
	c, ms := client(s), load(t)
	base := time.Now().UnixMilli()

	older := plan(t, c, ms, base)     // a poller that read the screen first…
	newer := plan(t, c, ms, base+500) // …and one that read it later
	if _, err := c.Exec(context.Background(), newer.Lines); err != nil {
		t.Fatal(err)
	}
	stampedNewer := s.Option(a.Pane, "@agent_stamped_at")
	// The older producer commits last: its guard fails server-side and it
	// writes nothing at all.
	if _, err := c.Exec(context.Background(), older.Lines); err != nil {
		t.Fatal(err)
	}
	if got := s.Option(a.Pane, "@agent_stamped_at"); got != stampedNewer {
		t.Fatalf("older producer overwrote the newer stamp: %s -> %s", stampedNewer, got)
	}

	// A hook claim with evidence newer than a capture producer's read wins:
	// the capture's write (blocked chrome, now on screen) is suppressed.
	a.Paint(claudeBlocked)
	capture := plan(t, c, ms, base+1000)
	hookAt := base + 1500
	for k, v := range map[string]string{"@agent_state": "working", "@agent_source": "hook",
		"@agent_evidence_at": itoa(hookAt), "@agent_stamped_at": itoa(hookAt)} {
		s.MustRun("set-option", "-p", "-t", a.Pane, k, v)
	}
	if _, err := c.Exec(context.Background(), capture.Lines); err != nil {
		t.Fatal(err)
	}
	if got := s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Fatalf("a stale capture overwrote a newer hook claim: state %q", got)
	}
	if got := s.Option(a.Pane, "@agent_attention"); got != "" {
		t.Fatalf("the losing producer raised attention: %q", got)
	}
	// The next capture, newer than the claim, lands the block at once.
	next := plan(t, c, ms, hookAt+100)
	if _, err := c.Exec(context.Background(), next.Lines); err != nil {
		t.Fatal(err)
	}
	if got := s.Option(a.Pane, "@agent_state"); got != "blocked" {
		t.Fatalf("newer blocker chrome did not override the claim: %q", got)
	}
}

func TestVanishedPaneCostsOnlyItself(t *testing.T) {
	s := testkit.NewServer(t)
	a := s.StartAgent("claude", claudeBlocked)
	b := s.StartAgent("claude", claudeIdle)
	c := client(s)
	shots, err := c.Capture(context.Background(), []string{a.Pane, "%999", b.Pane})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := shots["%999"]; ok || !strings.Contains(shots[a.Pane], "1. Yes") || !strings.Contains(shots[b.Pane], "Worked for") {
		t.Fatalf("captures = %q", shots)
	}
	lines := []string{
		mustLine(t, tmux.Write{Pane: a.Pane, Sets: []tmux.Set{{Name: "@x", Value: "1"}}}),
		mustLine(t, tmux.Write{Pane: "%999", Sets: []tmux.Set{{Name: "@x", Value: "1"}}}),
		mustLine(t, tmux.Write{Pane: b.Pane, Sets: []tmux.Set{{Name: "@x", Value: "it's #{pane_id}"}}}),
	}
	if _, err := c.Exec(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	if s.Option(a.Pane, "@x") != "1" || s.Option(b.Pane, "@x") != "it's #{pane_id}" {
		t.Fatalf("writes after a vanished pane were lost or mangled: %q %q", s.Option(a.Pane, "@x"), s.Option(b.Pane, "@x"))
	}
	if _, err := (tmux.Write{Pane: a.Pane, Sets: []tmux.Set{{Name: "@x", Value: "a\nkill-server"}}}).Line(); err == nil {
		t.Fatal("a value with a newline was accepted")
	}
}

// A cycle's tmux spawns do not grow with the fleet: a cold cycle lists,
// captures and writes; a warm one (nothing moved since the stamps) only
// lists and writes nothing, also with a pane whose hook claim is older than
// hook_decay_secs.
func TestCycleSpawnsAreConstant(t *testing.T) {
	s := testkit.NewServer(t)
	var agents []*testkit.Agent
	for i := 0; i < 6; i++ {
		agents = append(agents, s.StartAgent("claude", claudeIdle))
	}
	c, ms := client(s), load(t)
	// claude's hooks registered one pane and claimed it idle at the end of
	// a turn, longer ago than hook_decay_secs.
	hooked := agents[0]
	claimAt := time.Now().UnixMilli() - int64(fold.DefaultTuning.HookDecaySecs)*1000 - 30_000
	for _, event := range []string{"SessionStart", "Stop"} {
		hookAt(t, c, ms, hooked.Pane, event, claimAt)
	}
	quiet(t, s, agents)

	c.Spawns = 0
	pl := plan(t, c, ms, time.Now().UnixMilli())
	if _, err := c.Exec(context.Background(), pl.Lines); err != nil {
		t.Fatal(err)
	}
	if c.Spawns != 3 {
		t.Fatalf("cold cycle over 6 agents spawned tmux %d times, want 3 (list, capture, write)", c.Spawns)
	}
	if got := s.Option(hooked.Pane, "@agent_source"); got != "hook" {
		t.Fatalf("the aged hook claim did not hold over its quiet screen: @agent_source = %q", got)
	}

	for i := 0; i < 2; i++ {
		c.Spawns = 0
		pl = plan(t, c, ms, time.Now().UnixMilli())
		if len(pl.Lines) != 0 {
			t.Fatalf("warm cycle %d rewrote unchanged tuples:\n%s", i, strings.Join(pl.Lines, "\n"))
		}
		if _, err := c.Exec(context.Background(), pl.Lines); err != nil {
			t.Fatal(err)
		}
		if c.Spawns != 1 {
			t.Fatalf("warm cycle %d with an aged hook claim spawned tmux %d times, want 1 (the list)", i, c.Spawns)
		}
	}
}

// hookAt commits one claude hook event for pane as tma-hook plans it, but
// as if it had fired at ms.
func hookAt(t *testing.T, c *tmux.Client, ms *manifest.Set, pane, event string, at int64) {
	t.Helper()
	out, _, err := c.Run(context.Background(), "", "list-panes", "-a", "-F", "#{pane_id}\t#{@agent_session}\t#{@agent_name}\t#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	var panes []hook.Pane
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		pid, _ := strconv.Atoi(f[3])
		panes = append(panes, hook.Pane{ID: f[0], Session: f[1], Name: f[2], PanePID: pid})
	}
	ev := hook.Event{Agent: ms.Get("claude"), Name: event, Payload: hook.ParsePayload(`{"session_id":"s-aged"}`),
		Pane: pane, AgentPID: agentPID(t, c, ms, pane), NowMS: at}
	pl, err := hook.Build(ev, panes)
	if err != nil || len(pl.Lines) == 0 {
		t.Fatalf("hook %s: %v (%+v)", event, err, pl)
	}
	if errs, err := c.Exec(context.Background(), pl.Lines); err != nil || errs != "" {
		t.Fatalf("hook %s: %v %s", event, err, errs)
	}
}

func agentPID(t *testing.T, c *tmux.Client, ms *manifest.Set, pane string) int {
	t.Helper()
	res, err := scan.Run(context.Background(), c, scan.Options{Manifests: ms, Tuning: fold.DefaultTuning, Host: "h",
		Now: func() int64 { return time.Now().UnixMilli() }, Pane: pane, NoCapture: true})
	if err != nil || len(res.Panes) != 1 || res.Panes[0].AgentPID == 0 {
		t.Fatalf("no agent pid in %s: %v", pane, err)
	}
	return res.Panes[0].AgentPID
}

// quiet waits until every agent has painted and the second of its last
// output is over: window_activity is whole seconds, and a stamp in that
// same second would not let the next cycle skip the pane.
func quiet(t *testing.T, s *testkit.Server, agents []*testkit.Agent) {
	t.Helper()
	var last int64
	for _, a := range agents {
		s.WaitFor(func() bool {
			return strings.Contains(s.MustRun("capture-pane", "-p", "-t", a.Pane), "? for shortcuts")
		}, "the idle screen in "+a.Pane)
		at, _ := strconv.ParseInt(strings.TrimSpace(s.MustRun("display", "-p", "-t", a.Pane, "#{window_activity}")), 10, 64)
		last = max(last, at)
	}
	for time.Now().Unix() <= last {
		time.Sleep(50 * time.Millisecond)
	}
}

func mustLine(t *testing.T, w tmux.Write) string {
	l, err := w.Line()
	if err != nil {
		t.Fatal(err)
	}
	return l
}
