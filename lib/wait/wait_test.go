package wait

import (
	"testing"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
)

func row(pane, agent, state string, attn bool, episode int64) *record.Row {
	r := &record.Row{Row: record.AgentRow{Pane: pane, Agent: agent, State: state, Attention: attn, Done: state == "idle" && attn}}
	if episode > 0 {
		r.Row.EpisodeMS = &episode
	}
	return r
}

func until(s string) map[string]bool {
	m, err := selector.ParseStates("--until", s)
	if err != nil {
		panic(err)
	}
	return m
}

type step struct {
	rows  []*record.Row
	panes []string
	code  int // -1: still waiting
	n     int // rows printed
}

func run(t *testing.T, name string, s Spec, steps []step) {
	t.Helper()
	w := New(s)
	for i, st := range steps {
		d := w.Observe(st.rows, st.panes)
		code := -1
		if d.Done {
			code = d.Code
		}
		if code != st.code || (d.Done && code == 0 && len(d.Rows) != st.n) {
			t.Errorf("%s: step %d: done=%v code=%d rows=%d msg=%q; want code %d rows %d", name, i, d.Done, d.Code, len(d.Rows), d.Msg, st.code, st.n)
			return
		}
	}
}

func TestWait(t *testing.T) {
	working := func(p string) *record.Row { return row(p, "claude", "working", false, 10) }
	idle := func(p string, ep int64) *record.Row { return row(p, "claude", "idle", false, ep) }
	done := func(p string, ep int64) *record.Row { return row(p, "claude", "idle", true, ep) }
	panes := []string{"%1", "%2", "%3"}

	run(t, "level-triggered", Spec{Target: TargetPane, Pane: "%1", Until: until("idle")},
		[]step{{[]*record.Row{idle("%1", 5)}, panes, 0, 1}})
	run(t, "waits then reaches", Spec{Target: TargetPane, Pane: "%1", Until: until("idle,blocked")},
		[]step{{[]*record.Row{working("%1")}, panes, -1, 0}, {[]*record.Row{row("%1", "claude", "blocked", true, 20)}, panes, 0, 1}})
	run(t, "done is narrower than idle", Spec{Target: TargetPane, Pane: "%1", Until: until("done")},
		[]step{{[]*record.Row{idle("%1", 5)}, panes, -1, 0}, {[]*record.Row{done("%1", 6)}, panes, 0, 1}})
	retired := func(p string, ep int64) *record.Row { r := idle(p, ep); r.DoneCleared = true; return r }
	run(t, "a done the cycle's key retired is reached", Spec{Target: TargetPane, Pane: "%1", Until: until("done")},
		[]step{{[]*record.Row{working("%1")}, panes, -1, 0}, {[]*record.Row{retired("%1", 6)}, panes, 0, 1}})
	run(t, "…by --any too", Spec{Target: TargetAny, Until: until("done")},
		[]step{{[]*record.Row{working("%1"), retired("%2", 6)}, panes, 0, 1}})
	run(t, "idle matches done", Spec{Target: TargetPane, Pane: "%1", Until: until("idle")},
		[]step{{[]*record.Row{done("%1", 6)}, panes, 0, 1}})
	run(t, "--since needs a newer episode", Spec{Target: TargetPane, Pane: "%1", Until: until("idle"), Since: 6},
		[]step{{[]*record.Row{idle("%1", 6)}, panes, -1, 0}, {[]*record.Row{working("%1")}, panes, -1, 0}, {[]*record.Row{idle("%1", 7)}, panes, 0, 1}})
	run(t, "pane vanishes: 3", Spec{Target: TargetPane, Pane: "%1", Until: until("idle")},
		[]step{{[]*record.Row{working("%1")}, panes, -1, 0}, {nil, []string{"%2"}, 3, 0}})
	run(t, "agent died in a live pane: 4", Spec{Target: TargetPane, Pane: "%1", Until: until("idle")},
		[]step{{[]*record.Row{working("%1")}, panes, -1, 0}, {nil, panes, 4, 0}})
	run(t, "a pane with no agent yet blocks", Spec{Target: TargetPane, Pane: "%1", Until: until("idle")},
		[]step{{nil, panes, -1, 0}, {nil, panes, -1, 0}, {[]*record.Row{idle("%1", 3)}, panes, 0, 1}})
	run(t, "a missing pane blocks (typo hint), then vanishing after appearing is 3", Spec{Target: TargetPane, Pane: "%9", Until: until("idle")},
		[]step{{nil, panes, -1, 0}, {nil, append(panes, "%9"), -1, 0}, {nil, panes, 3, 0}})

	run(t, "--agent pins", Spec{Target: TargetAgent, Agent: "claude", Until: until("idle")},
		[]step{{[]*record.Row{working("%1")}, panes, -1, 0}, {[]*record.Row{working("%1"), idle("%2", 4)}, panes, -1, 0}, {[]*record.Row{idle("%1", 5)}, panes, 0, 1}})
	run(t, "--agent ambiguous: 1", Spec{Target: TargetAgent, Agent: "claude", Until: until("idle")},
		[]step{{[]*record.Row{working("%1"), working("%2")}, panes, 1, 0}})
	run(t, "--any keeps waiting past a departure", Spec{Target: TargetAny, Until: until("blocked")},
		[]step{{[]*record.Row{working("%1"), working("%2")}, panes, -1, 0}, {[]*record.Row{working("%2")}, []string{"%2"}, -1, 0}, {[]*record.Row{row("%2", "claude", "blocked", true, 9)}, []string{"%2"}, 0, 1}})

	run(t, "--all over nothing: 2", Spec{Target: TargetAll, Until: until("idle")},
		[]step{{nil, panes, 2, 0}})
	run(t, "--all membership is pinned", Spec{Target: TargetAll, Until: until("idle")},
		[]step{{[]*record.Row{working("%1")}, panes, -1, 0}, {[]*record.Row{idle("%1", 5), working("%2")}, panes, 0, 1}})
	run(t, "--all member's pane dies: 3", Spec{Target: TargetAll, Until: until("idle")},
		[]step{{[]*record.Row{working("%1"), working("%2")}, panes, -1, 0}, {[]*record.Row{idle("%1", 5)}, []string{"%1"}, 3, 0}})
	run(t, "--all member's agent dies: 4", Spec{Target: TargetAll, Until: until("idle")},
		[]step{{[]*record.Row{working("%1"), working("%2")}, panes, -1, 0}, {[]*record.Row{idle("%1", 5)}, panes, 4, 0}})
	// The first member still working must not hide a later one's death.
	run(t, "--all second member's pane dies while the first works: 3", Spec{Target: TargetAll, Until: until("idle")},
		[]step{{[]*record.Row{working("%1"), working("%2")}, panes, -1, 0}, {[]*record.Row{working("%1")}, []string{"%1", "%3"}, 3, 0}})
	run(t, "--all second member's agent dies while the first works: 4", Spec{Target: TargetAll, Until: until("idle")},
		[]step{{[]*record.Row{working("%1"), working("%2")}, panes, -1, 0}, {[]*record.Row{working("%1")}, panes, 4, 0}})
	run(t, "--count is a quorum over whoever shows up", Spec{Target: TargetCount, Count: 2, Until: until("idle")},
		[]step{{[]*record.Row{idle("%1", 5)}, panes, -1, 0}, {[]*record.Row{idle("%3", 6)}, panes, -1, 0}, {[]*record.Row{idle("%1", 5), idle("%3", 6)}, panes, 0, 2}})
	run(t, "--count with --since", Spec{Target: TargetCount, Count: 1, Until: until("idle"), Since: 5},
		[]step{{[]*record.Row{idle("%1", 5)}, panes, -1, 0}, {[]*record.Row{idle("%1", 8)}, panes, 0, 1}})
}

// The row a wait answers with is the done it reached, not the idle row
// the key left.
func TestRetiredDoneIsAnsweredAsDone(t *testing.T) {
	r := row("%1", "claude", "idle", false, 6)
	r.DoneCleared = true
	d := New(Spec{Target: TargetPane, Pane: "%1", Until: until("done")}).Observe([]*record.Row{r}, []string{"%1"})
	if !d.Done || d.Code != 0 || len(d.Rows) != 1 || !d.Rows[0].Row.Done || !d.Rows[0].Row.Attention {
		t.Fatalf("decision %+v", d)
	}
	if r.Row.Done {
		t.Error("the caller's row was changed")
	}
}

func TestStatesText(t *testing.T) {
	if got := New(Spec{Until: until("blocked,idle")}).States(); got != "idle or blocked" {
		t.Errorf("got %q", got)
	}
	if got := New(Spec{Until: until("done,idle,working")}).States(); got != "idle, working or done" {
		t.Errorf("got %q", got)
	}
}
