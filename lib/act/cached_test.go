package act

import (
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// TestResultCachedKey: a --slot dispatch's result carries cached after
// reason (false on a fire, true on a replay); without --slot it is absent.
func TestResultCachedKey(t *testing.T) {
	r := NewResult("approve", "%5", OutcomeSent, "")
	for _, c := range []bool{false, true} {
		r.Cached = &c
		b, _ := Marshal(r)
		if k := testkit.KeyOrder(t, string(b)); k != "schema action pane outcome exit_code reason cached" {
			t.Errorf("cached=%v keys: %s", c, k)
		}
	}
	r.Cached = nil
	if b, _ := Marshal(r); testkit.KeyOrder(t, string(b)) != "schema action pane outcome exit_code reason" {
		t.Errorf("without --slot: %s", b)
	}
}
