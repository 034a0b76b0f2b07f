package doctor

import (
	"strings"
	"testing"
)

// TestDemotedOnlyByTheDaemon: doctor's demoted: line is the daemon's
// demotion (@tma_demoted), not any capture verdict on a registered pane,
// and a hook claim newer than the demotion (a promotion the next cycle
// will commit) is not demoted either.
func TestDemotedOnlyByTheDaemon(t *testing.T) {
	race := agentPane("%1", "claude", stamped("blocked", "permission", "capture"))
	race.Opts["@agent_session"] = "sess-1"
	demoted := agentPane("%2", "claude", stamped("working", "", "capture"))
	demoted.Opts["@agent_session"] = "sess-1"
	demoted.Opts["@tma_demoted"] = "1699999999000"
	promoted := agentPane("%3", "claude", stamped("idle", "", "hook"))
	promoted.Opts["@agent_session"] = "sess-1"
	promoted.Opts["@tma_demoted"] = "1699999998000"
	doc, text := Diagnose(healthy(t, race, demoted, promoted))
	if len(doc.Agents) != 3 {
		t.Fatalf("%d agents:\n%s", len(doc.Agents), text)
	}
	for i, want := range []bool{false, true, false} {
		if doc.Agents[i].HookDemoted != want {
			t.Errorf("%s: hook_demoted %v, want %v:\n%s", doc.Agents[i].Pane, doc.Agents[i].HookDemoted, want, text)
		}
	}
	if n := strings.Count(text, "demoted:"); n != 1 {
		t.Errorf("%d demoted: lines, want 1:\n%s", n, text)
	}
}
