package fold

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmaproject/tma/lib/record"
)

func TestDemotion(t *testing.T) {
	two := DefaultTuning
	two.DemoteEdges = 2
	edge := func(p *record.Pane) *record.Pane { p.QuietEdge = now - 1000; return p }
	// idle is not visible in the test manifest: without demotion an idle
	// hook claim holds against working chrome for ever.
	idleClaim := stamped("idle", "hook", 10_000, 10_000)
	counted := idleClaim.with("@tma_unexplained", "1").with("@tma_unexplained_at", ms(now-4000))
	demotedAt := now - 3000
	demoted := stamped("working", "capture", 3000, 3000).with("@tma_demoted", ms(demotedAt)).
		with("@tma_unexplained", "2").with("@tma_unexplained_at", ms(now-4000))
	cases := []struct {
		name    string
		p       *record.Pane
		tune    Tuning
		want    string // action state source
		anchors map[string]int64
	}{
		{"no edge counts nothing", pane(idleClaim, workingScreen), two, "hold idle hook", nil},
		{"an edge against the claim counts", edge(pane(idleClaim, workingScreen)), two, "hold idle hook",
			map[string]int64{"@tma_unexplained": 1, "@tma_unexplained_at": now}},
		{"the threshold demotes: the screen decides", edge(pane(counted, workingScreen)), two, "publish working capture",
			map[string]int64{"@tma_unexplained": 2, "@tma_unexplained_at": now - 4000, "@tma_demoted": now}},
		{"the default threshold is five", edge(pane(counted, workingScreen)), DefaultTuning, "hold idle hook",
			map[string]int64{"@tma_unexplained": 2, "@tma_unexplained_at": now - 4000}},
		{"no threshold, no demotion", edge(pane(counted, workingScreen)), Tuning{HookDecaySecs: 60, BlockedDecaySecs: 300}, "hold idle hook",
			map[string]int64{"@tma_unexplained": 1, "@tma_unexplained_at": now - 4000}},
		{"a working claim explains a spinner", edge(pane(stamped("working", "hook", 10_000, 10_000), workingScreen)), two, "hold working hook", nil},
		{"a working claim explains a screen no rule reads", edge(pane(stamped("working", "hook", 10_000, 10_000), blankScreen)), two, "hold working hook", nil},
		{"idle chrome explains output under an idle claim (typing)", edge(pane(idleClaim.with("@tma_unexplained", "1").with("@tma_unexplained_at", ms(now-4000)), idleScreen)), two, "hold idle hook",
			map[string]int64{"@tma_unexplained": 1, "@tma_unexplained_at": now - 4000}},
		{"a hook event since the first edge restarts the count", edge(pane(stamped("idle", "hook", 1000, 10_000).with("@tma_unexplained", "1").with("@tma_unexplained_at", ms(now-4000)), workingScreen)), two, "hold idle hook",
			map[string]int64{"@tma_unexplained": 1, "@tma_unexplained_at": now}},
		{"a demotion stands on a cycle with no capture", pane(demoted, ""), two, "hold working capture",
			map[string]int64{"@tma_unexplained": 2, "@tma_unexplained_at": now - 4000, "@tma_demoted": demotedAt}},
		{"a demotion stands while the screen decides", pane(demoted, blockedScreen), two, "publish blocked capture",
			map[string]int64{"@tma_unexplained": 2, "@tma_unexplained_at": now - 4000, "@tma_demoted": demotedAt}},
		{"a hook claim older than the demotion does not outrank the screen", edge(pane(stamped("working", "hook", 5000, 5000).with("@tma_demoted", ms(demotedAt)), blockedScreen)), two, "publish blocked capture",
			map[string]int64{"@tma_demoted": demotedAt}},
		{"a hook event after the demotion promotes", edge(pane(stamped("idle", "hook", 1000, 1000).with("@tma_demoted", ms(demotedAt)).with("@tma_unexplained", "2").with("@tma_unexplained_at", ms(now-4000)), workingScreen)), two, "hold idle hook",
			map[string]int64{"@tma_unexplained": 1, "@tma_unexplained_at": now}},
		{"a pane whose agent left keeps nothing", func() *record.Pane { p := pane(demoted, ""); p.Agent = ""; return p }(), two, "clear -", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Fold(c.p, agent(t), c.tune, true)
			src := v.Source
			if v.Action == record.ActClear {
				src = "-"
			}
			got := v.Action + " " + v.State + " " + src
			if v.Action == record.ActClear {
				got = v.Action + " -"
			}
			if got != c.want {
				t.Fatalf("got %q, want %q\ntrace: %v", got, c.want, v.Trace)
			}
			anchors := map[string]int64{}
			for k, n := range v.Anchors {
				if k == "@tma_unexplained" || k == "@tma_unexplained_at" || k == "@tma_demoted" {
					anchors[k] = n
				}
			}
			if c.anchors == nil {
				c.anchors = map[string]int64{}
			}
			if d := cmp.Diff(c.anchors, anchors); d != "" {
				t.Fatalf("anchors (-want +got):\n%s\ntrace: %v", d, v.Trace)
			}
		})
	}
}

// The stored bookkeeping round-trips through the options a stamp writes.
func TestDemotionPrior(t *testing.T) {
	p := record.ParsePrior(map[string]string{"@agent_state": "idle", "@agent_source": "hook", "@agent_evidence_at": ms(now - 5000),
		"@tma_unexplained": "3", "@tma_unexplained_at": ms(now - 4000), "@tma_demoted": ms(now - 3000)})
	if p.Unexplained != 3 || p.UnexplainedAt != now-4000 || p.Demoted != now-3000 {
		t.Fatalf("parsed %d %d %d", p.Unexplained, p.UnexplainedAt, p.Demoted)
	}
	if !p.IsDemoted() {
		t.Fatal("a hook claim older than the demotion reads as promoted")
	}
	p.EvidenceAt = now - 1000
	if p.IsDemoted() {
		t.Fatal("a hook claim newer than the demotion reads as demoted")
	}
	p.Source = "capture"
	if !p.IsDemoted() {
		t.Fatal("a capture verdict newer than the demotion reads as promoted")
	}
}
