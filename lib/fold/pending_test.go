package fold

import (
	"testing"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
)

// TestPending: a pane with a verdict keeps it, one without gets the fold's,
// and explain refolds both with a trace; the lookup is asked by agent name.
func TestPending(t *testing.T) {
	kept := &record.Verdict{Action: record.ActHold, State: "blocked"}
	folded := &record.Pane{Pane: "%1", Opts: map[string]string{}}
	given := &record.Pane{Pane: "%2", Agent: "claude", Opts: map[string]string{}, Verdict: kept}
	var asked []string
	lookup := func(name string) *manifest.Agent { asked = append(asked, name); return nil }

	Pending([]*record.Pane{folded, given}, lookup, Tuning{}, false)
	if folded.Verdict == nil || folded.Verdict.Action != record.ActNone {
		t.Fatalf("a pane with no agent folds to %+v, want action none", folded.Verdict)
	}
	if given.Verdict != kept {
		t.Fatalf("a folded pane's verdict was replaced: %+v", given.Verdict)
	}
	if len(asked) != 1 || asked[0] != "" {
		t.Errorf("lookups %q: only the unfolded pane's agent is looked up", asked)
	}

	first := folded.Verdict
	Pending([]*record.Pane{folded, given}, lookup, Tuning{}, true)
	if given.Verdict == kept || len(given.Verdict.Trace) == 0 || folded.Verdict == first {
		t.Fatalf("explain did not refold with a trace: %+v / %+v", given.Verdict, folded.Verdict)
	}
}
