package daemon

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tmaproject/tma/lib/record"
)

func row(pane, state string, done bool, since int64, src string) *record.Row {
	r := &record.Row{Row: record.AgentRow{Pane: pane, Agent: "claude", State: state, Done: done}, Source: src}
	if since > 0 {
		r.Row.Since = &since
	}
	return r
}

// The first sight of a pane is a transition from nothing; a class change
// is one; no change is none; done is a class of its own; a vanished pane
// is forgotten, so its return is a first sight again.
func TestRingObserve(t *testing.T) {
	r := NewRing()
	ts := r.Observe([]*record.Row{row("%1", "working", false, 1000, "hook")}, 1500)
	if len(ts) != 1 || ts[0].From != nil || ts[0].To != "working" || ts[0].AtMS != 1000 || ts[0].Src != "hook" {
		t.Fatalf("first sight: %+v", ts)
	}
	if ts := r.Observe([]*record.Row{row("%1", "working", false, 1000, "hook")}, 2500); len(ts) != 0 {
		t.Fatalf("no change: %+v", ts)
	}
	ts = r.Observe([]*record.Row{row("%1", "idle", true, 3000, "capture")}, 3100)
	if len(ts) != 1 || *ts[0].From != "working" || ts[0].To != "done" || ts[0].AtMS != 3000 {
		t.Fatalf("working -> done: %+v", ts)
	}
	// A since from the future (clock skew) is not the transition's time.
	ts = r.Observe([]*record.Row{row("%1", "blocked", false, 9999, "")}, 4000)
	if len(ts) != 1 || ts[0].AtMS != 4000 || ts[0].Src != "-" {
		t.Fatalf("since ahead of now: %+v", ts)
	}
	r.Observe(nil, 5000)
	ts = r.Observe([]*record.Row{row("%1", "blocked", false, 0, "hook")}, 6000)
	if len(ts) != 1 || ts[0].From != nil {
		t.Fatalf("a returning pane: %+v", ts)
	}
	if d := r.Doc(); d.Recorded != 4 || len(d.Transitions) != 4 || d.Cap != RingCap {
		t.Fatalf("doc: %+v", d)
	}
}

// The ring keeps the last RingCap, oldest first, and counts every one.
func TestRingWraps(t *testing.T) {
	r := NewRing()
	for i := 0; i < RingCap+10; i++ {
		state := "working"
		if i%2 == 1 {
			state = "idle"
		}
		r.Observe([]*record.Row{row("%1", state, false, 0, "capture")}, int64(i))
	}
	d := r.Doc()
	if d.Recorded != RingCap+10 || len(d.Transitions) != RingCap {
		t.Fatalf("recorded %d held %d", d.Recorded, len(d.Transitions))
	}
	for i, tr := range d.Transitions {
		if tr.AtMS != int64(i+10) {
			t.Fatalf("transition %d at %d, want %d (oldest first)", i, tr.AtMS, i+10)
		}
	}
}

// The text and JSON forms are the manual's.
func TestTransitionsRender(t *testing.T) {
	r := NewRing()
	r.Observe([]*record.Row{row("%1", "working", false, 1700000000000, "hook")}, 1700000000000)
	r.Observe([]*record.Row{row("%1", "blocked", false, 1700000001500, "hook")}, 1700000001500)
	var b bytes.Buffer
	if err := r.Doc().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "transitions (2 held, cap 256, 2 recorded over the daemon's life):\n" +
		"  %1     -        -> working  at=1700000000000 src=hook\n" +
		"  %1     working  -> blocked  at=1700000001500 src=hook\n"
	if b.String() != want {
		t.Fatalf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	j, _ := json.Marshal(r.Doc())
	wantJ := `{"schema":1,"cap":256,"recorded":2,"transitions":[` +
		`{"pane":"%1","agent":"claude","from":null,"to":"working","detail":null,"at_ms":1700000000000,"src":"hook"},` +
		`{"pane":"%1","agent":"claude","from":"working","to":"blocked","detail":null,"at_ms":1700000001500,"src":"hook"}]}`
	if string(j) != wantJ {
		t.Fatalf("json:\n%s\nwant:\n%s", j, wantJ)
	}
	if j, _ := json.Marshal(NewRing().Doc()); string(j) != `{"schema":1,"cap":256,"recorded":0,"transitions":[]}` {
		t.Fatalf("empty: %s", j)
	}
}
