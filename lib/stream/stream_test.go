package stream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/record"
)

func r(pane, state string, attn bool) *record.Row {
	return &record.Row{Row: record.AgentRow{Pane: pane, Agent: "claude", State: state, Attention: attn, Done: state == "idle" && attn, Locator: "s:0." + pane[1:]}}
}

func edges(es []Event) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Pane+":"+e.From+">"+e.To)
	}
	return strings.Join(s, " ")
}

func TestEvents(t *testing.T) {
	var d Differ
	if got := d.Events([]*record.Row{r("%1", "working", false), r("%2", "idle", false)}, 1); got != nil {
		t.Fatalf("first cycle invented edges: %v", got)
	}
	cases := []struct {
		rows []*record.Row
		want string
	}{
		{[]*record.Row{r("%1", "working", false), r("%2", "idle", false)}, ""},
		{[]*record.Row{r("%1", "blocked", true), r("%2", "idle", false)}, "%1:working>blocked"},
		{[]*record.Row{r("%1", "blocked", true), r("%2", "idle", true)}, "%2:idle>done"},
		{[]*record.Row{r("%1", "blocked", true), r("%2", "idle", false), r("%3", "unknown", false)}, "%2:done>idle %3:>unknown"},
		{[]*record.Row{r("%2", "idle", false), r("%3", "unknown", false)}, "%1:blocked>"},
	}
	for i, c := range cases {
		if got := edges(d.Events(c.rows, int64(i+2))); got != c.want {
			t.Errorf("cycle %d: got %q want %q", i+2, got, c.want)
		}
	}
	// A detail or title change alone is no transition.
	a, b := r("%4", "blocked", true), r("%4", "blocked", true)
	det := "permission"
	b.Row.Detail, b.Row.Title = &det, "new title"
	var d2 Differ
	d2.Events([]*record.Row{a}, 1)
	if got := d2.Events([]*record.Row{b}, 2); len(got) != 0 {
		t.Errorf("detail change emitted %v", got)
	}
}

func TestEventKeys(t *testing.T) {
	var d Differ
	d.Events(nil, 1)
	es := d.Events([]*record.Row{r("%1", "working", false)}, 2)
	b, _ := json.Marshal(es[0])
	want := `{"schema":1,"at_ms":2,"pane":"%1","agent":"claude","from":"","to":"working","detail":null,"locator":"s:0.1","repo":null,"branch":null}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestSnapshotChangesOnly(t *testing.T) {
	var d Differ
	rows := []*record.Row{r("%1", "working", false)}
	if d.Snapshot(rows, true) == nil {
		t.Fatal("the first snapshot is always sent")
	}
	if d.Snapshot(rows, true) != nil {
		t.Fatal("an unchanged snapshot was sent with changes-only")
	}
	if d.Snapshot(rows, false) == nil {
		t.Fatal("without changes-only every snapshot is sent")
	}
	if d.Snapshot([]*record.Row{r("%1", "idle", false)}, true) == nil {
		t.Fatal("a changed snapshot was held")
	}
	// A working agent's stamp moves every cycle: that alone is no change,
	// and a sent document carries the current stamp.
	stamped := func(at int64) []*record.Row {
		x := r("%1", "working", false)
		x.Row.StampedAtMS = &at
		return []*record.Row{x}
	}
	if d.Snapshot(stamped(1000), true) == nil {
		t.Fatal("the state change to working was held")
	}
	if d.Snapshot(stamped(2000), true) != nil {
		t.Fatal("a snapshot differing only in stamped_at_ms was sent")
	}
	x := stamped(3000)
	x[0].Row.State = "blocked"
	if b := d.Snapshot(x, true); b == nil || !strings.Contains(string(b), `"stamped_at_ms":3000`) {
		t.Fatalf("a real change: %s", b)
	}
}

// TestQuiet: --changes-only decides only while polling; riding a daemon a
// belt cycle prints only a change and a wake's cycle prints what it saw,
// with the flag or without.
func TestQuiet(t *testing.T) {
	for _, c := range []struct {
		push, own, changesOnly, quiet bool
	}{
		{false, false, false, false},
		{false, false, true, true},
		{true, false, false, true},
		{true, false, true, true},
		{true, true, false, false},
		{true, true, true, false},
	} {
		if got := Quiet(c.push, c.own, c.changesOnly); got != c.quiet {
			t.Errorf("Quiet(push %v, own %v, changes-only %v) = %v, want %v", c.push, c.own, c.changesOnly, got, c.quiet)
		}
	}
}

// TestEventsKeepARetiredDone: a cycle that read a pane done and retired
// the mark (a key in a client showing it; back to work) still reports the
// completion the stream never saw, then its end; a done the stream saw
// ends as one edge, and a blocked pane's retired mark is no completion.
func TestEventsKeepARetiredDone(t *testing.T) {
	cleared := func(x *record.Row) *record.Row { x.DoneCleared = true; return x }
	var d Differ
	d.Events([]*record.Row{r("%1", "working", false), r("%2", "working", false), r("%3", "idle", true), r("%4", "idle", false)}, 1)
	got := edges(d.Events([]*record.Row{
		cleared(r("%1", "idle", false)),    // working → done → idle, the key in between
		cleared(r("%2", "working", false)), // a whole turn's end between two cycles
		cleared(r("%3", "idle", false)),    // the stream saw %3 done: one edge
		cleared(r("%4", "idle", false)),    // idle → done → idle (a turn end on an idle pane)
	}, 2))
	if want := "%1:working>done %1:done>idle %2:working>done %2:done>working %3:done>idle %4:idle>done %4:done>idle"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The synthesized done carries no detail of the row after it.
	det := "background"
	x := cleared(r("%5", "working", false))
	x.Row.Detail = &det
	var d2 Differ
	d2.Events([]*record.Row{r("%5", "working", false)}, 1)
	es := d2.Events([]*record.Row{x}, 2)
	if len(es) != 2 || es[0].Detail != nil || es[1].Detail == nil || *es[1].Detail != det {
		t.Errorf("details: %+v", es)
	}
}
