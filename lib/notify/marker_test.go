package notify

import (
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/testkit"
)

// run feeds lines to the test server's source-file, as lib/tmux does.
func run(t *testing.T, s *testkit.Server, lines ...string) string {
	t.Helper()
	cmd := exec.Command(s.Bin, "-L", s.Name, "source-file", "-")
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("source-file: %v\n%s", err, out)
	}
	return string(out)
}

func pane(t *testing.T, s *testkit.Server) string {
	return strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
}

func set(t *testing.T, s *testkit.Server, p string, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			s.MustRun("set", "-pu", "-t", p, kv[i])
		} else {
			s.MustRun("set", "-p", "-t", p, kv[i], kv[i+1])
		}
	}
}

func line(t *testing.T, a Arm, nonce string) string {
	t.Helper()
	l, err := a.Line(nonce)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// One episode fires once, whoever arms it and however often; a new episode
// fires again; the winner reads the pane back in the same call.
func TestArmFiresOncePerEpisode(t *testing.T) {
	s := testkit.NewServer(t)
	p := pane(t, s)
	now := time.Now().UnixMilli()
	set(t, s, p, "@agent_name", "claude", "@agent_state", "blocked", "@agent_detail", "permission",
		"@agent_since", "1000", "@agent_mute_until", "77")
	a := Arm{Trigger: Blocked, Pane: p, NowMS: now}
	out := run(t, s, line(t, a, "n1"), line(t, a, "n2"))
	won := Won(out, "n1")
	if len(won) != 1 || len(Won(out, "n2")) != 0 {
		t.Fatalf("want n1 alone to win:\n%q", out)
	}
	f := won[0]
	if f.Trigger != Blocked || f.Pane != p || f.Agent != "claude" || f.State != "blocked" || f.Detail != "permission" ||
		f.SinceMS != 1000 || f.MuteUntil != 77 || f.Locator != "s:0.0" || !strings.HasPrefix(f.TTY, "/dev/") {
		t.Errorf("read back %+v", f)
	}
	if got := s.Option(p, MarkerState); got != itoa(now) {
		t.Errorf("marker %q, want %d", got, now)
	}
	if out := run(t, s, line(t, a, "n3")); len(Won(out, "n3")) != 0 {
		t.Errorf("the same episode fired twice: %q", out)
	}
	// Not blocked: nothing.
	set(t, s, p, "@agent_state", "working", "@agent_since", itoa(now+10))
	if out := run(t, s, line(t, a, "n4")); len(Won(out, "n4")) != 0 {
		t.Errorf("a working pane fired blocked")
	}
	// A new blocked episode whose since is ahead of the firer's clock: it
	// fires, and the marker closes that episode, not an older time.
	set(t, s, p, "@agent_state", "blocked", "@agent_since", itoa(now+5000))
	if out := run(t, s, line(t, a, "n5")); len(Won(out, "n5")) != 1 {
		t.Errorf("a new episode did not fire: %q", out)
	}
	if got := s.Option(p, MarkerState); got != itoa(now+5000) {
		t.Errorf("marker %q, want the episode's since %d", got, now+5000)
	}
	if out := run(t, s, line(t, a, "n6")); len(Won(out, "n6")) != 0 {
		t.Errorf("fired twice for a since ahead of the clock")
	}
}

// Producers racing in separate tmux clients: exactly one wins each episode.
func TestArmRace(t *testing.T) {
	s := testkit.NewServer(t)
	p := pane(t, s)
	for ep := 0; ep < 10; ep++ {
		since := time.Now().UnixMilli() + int64(ep)
		set(t, s, p, "@agent_state", "blocked", "@agent_since", itoa(since))
		var wg sync.WaitGroup
		outs := make([]string, 4)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(s.Bin, "-L", s.Name, "source-file", "-")
				l, _ := Arm{Trigger: Blocked, Pane: p, NowMS: since}.Line("r" + itoa(int64(i)))
				cmd.Stdin = strings.NewReader(l + "\n")
				o, _ := cmd.CombinedOutput()
				outs[i] = string(o)
			}()
		}
		wg.Wait()
		n := 0
		for i, o := range outs {
			n += len(Won(o, "r"+itoa(int64(i))))
		}
		if n != 1 {
			t.Fatalf("episode %d: %d winners\n%q", ep, n, outs)
		}
	}
}

func TestArmDoneStallContext(t *testing.T) {
	s := testkit.NewServer(t)
	p := pane(t, s)
	now := time.Now().UnixMilli()
	fires := func(a Arm) bool { return len(Won(run(t, s, line(t, a, "x")), "x")) == 1 }

	// done: idle with attention, once.
	set(t, s, p, "@agent_state", "idle", "@agent_since", itoa(now-100), "@agent_attention", "")
	if fires(Arm{Trigger: Done, Pane: p, NowMS: now}) {
		t.Errorf("idle without attention fired done")
	}
	set(t, s, p, "@agent_attention", "1")
	if !fires(Arm{Trigger: Done, Pane: p, NowMS: now}) || fires(Arm{Trigger: Done, Pane: p, NowMS: now}) {
		t.Errorf("done did not fire exactly once")
	}

	// stall: working past the threshold, once per run, its own marker.
	set(t, s, p, "@agent_state", "working", "@agent_since", itoa(now-20_000))
	if fires(Arm{Trigger: Stall, Pane: p, NowMS: now, Threshold: 30}) {
		t.Errorf("stall fired under its threshold")
	}
	if !fires(Arm{Trigger: Stall, Pane: p, NowMS: now, Threshold: 10}) || fires(Arm{Trigger: Stall, Pane: p, NowMS: now, Threshold: 10}) {
		t.Errorf("stall did not fire exactly once")
	}
	if s.Option(p, MarkerStall) == "" || s.Option(p, MarkerState) == "" {
		t.Errorf("markers: stall %q state %q", s.Option(p, MarkerStall), s.Option(p, MarkerState))
	}
	// A new working run re-arms it.
	set(t, s, p, "@agent_since", itoa(now+1000))
	if !fires(Arm{Trigger: Stall, Pane: p, NowMS: now + 20_000, Threshold: 10}) {
		t.Errorf("a new working run did not re-arm stall")
	}

	// context_high: fires on the crossing, holds, re-arms below threshold-10.
	ch := Arm{Trigger: ContextHigh, Pane: p, NowMS: now, Threshold: 75}
	set(t, s, p, "@agent_context_pct", "74")
	if fires(ch) {
		t.Errorf("context_high fired under its threshold")
	}
	set(t, s, p, "@agent_context_pct", "80")
	if !fires(ch) || fires(ch) {
		t.Errorf("context_high did not fire exactly once")
	}
	rearm, err := RearmContext(p, 75)
	if err != nil {
		t.Fatal(err)
	}
	set(t, s, p, "@agent_context_pct", "70")
	run(t, s, rearm)
	if s.Option(p, MarkerContext) == "" {
		t.Errorf("re-armed inside the band (70 ≥ 65)")
	}
	set(t, s, p, "@agent_context_pct", "60")
	run(t, s, rearm)
	if s.Option(p, MarkerContext) != "" {
		t.Errorf("not re-armed below the band")
	}
	set(t, s, p, "@agent_context_pct", "90")
	if !fires(ch) {
		t.Errorf("context_high did not fire after re-arming")
	}
	// The crossing is of the gauge its agent reported: a pane named for
	// another agent since the cycle listed it fires nothing.
	run(t, s, rearm)
	set(t, s, p, "@agent_context_pct", "60", "@agent_name", "gemini")
	run(t, s, rearm)
	set(t, s, p, "@agent_context_pct", "90")
	if fires(Arm{Trigger: ContextHigh, Pane: p, Agent: "claude", NowMS: now, Threshold: 75}) {
		t.Errorf("context_high fired for claude on a pane named gemini")
	}
	set(t, s, p, "@agent_name", "claude")
	if !fires(Arm{Trigger: ContextHigh, Pane: p, Agent: "claude", NowMS: now, Threshold: 75}) {
		t.Errorf("context_high did not fire for claude's own gauge")
	}
}

// context_high is armed only for an agent whose manifest declares a
// context gauge (issue 27 item 9): a gauge on any other agent's pane is
// nothing that agent reported.
func TestArmsForContextFollowsCoverage(t *testing.T) {
	cfg := config.Default()
	cfg.Notify.ContextHigh = &config.ContextHigh{Threshold: 75}
	const now = 1_800_000_000_000
	pane := func(id, agent string) *record.Pane {
		return &record.Pane{Pane: id, Agent: agent, Opts: map[string]string{"@agent_name": agent, "@agent_state": "idle", "@agent_since": "1", "@agent_context_pct": "90"},
			Verdict: &record.Verdict{State: "idle", Action: record.ActHold}}
	}
	covered := func(a string) bool { return a == "claude" }
	arms, _ := ArmsFor(cfg, []*record.Pane{pane("%1", "gemini"), pane("%2", "claude")}, now, true, covered)
	if len(arms) != 1 || arms[0].Pane != "%2" || arms[0].Trigger != ContextHigh || arms[0].Agent != "claude" {
		t.Errorf("arms %+v", arms)
	}
	if arms, _ := ArmsFor(cfg, []*record.Pane{pane("%2", "claude")}, now, true, nil); len(arms) != 0 {
		t.Errorf("armed with no coverage known: %+v", arms)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
