package stamp

import (
	"testing"

	"github.com/tmaproject/tma/lib/record"
)

// TestRowDoneCleared: a row says the pane was done at this cycle's read and
// is not after its commit (the mark retired by a key, or the pane back at
// work); a done that stays, a blocked mark retired, or a pane that was
// never done say nothing.
func TestRowDoneCleared(t *testing.T) {
	cyc := &record.Cycle{NowMS: 5000}
	row := func(stored map[string]string, v record.Verdict) *record.Row {
		t.Helper()
		opts := map[string]string{"@agent_since": "1000", "@agent_evidence_at": "1000", "@agent_stamped_at": "1000"}
		for k, x := range stored {
			opts[k] = x
		}
		r := Row(cyc, &record.Pane{Pane: "%1", Agent: "claude", Opts: opts}, &v)
		if r == nil {
			t.Fatal("no row")
		}
		return r
	}
	done := map[string]string{"@agent_state": "idle", "@agent_attention": "1"}
	hold := record.Verdict{State: "idle", Action: record.ActHold, Since: 1000}
	cleared := hold
	cleared.ClearAttn = true
	working := record.Verdict{State: "working", Action: record.ActPublish, Since: 5000, EvidenceAt: 5000}
	for _, c := range []struct {
		what   string
		stored map[string]string
		v      record.Verdict
		want   bool
	}{
		{"done, a key retired the mark", done, cleared, true},
		{"done, back at work", done, working, true},
		{"done, still done", done, hold, false},
		{"blocked, its mark retired", map[string]string{"@agent_state": "blocked", "@agent_attention": "1"}, cleared, false},
		{"idle, never done", map[string]string{"@agent_state": "idle"}, hold, false},
	} {
		if got := row(c.stored, c.v).DoneCleared; got != c.want {
			t.Errorf("%s: DoneCleared %v, want %v", c.what, got, c.want)
		}
	}
}
