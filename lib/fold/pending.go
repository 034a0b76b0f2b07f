package fold

import (
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
)

// Pending folds every pane of a cycle that carries no verdict yet: a stage
// fed raw scan records (tma-stamp under the cron floor) folds them itself,
// and one fed folded records keeps the verdicts it was given. explain folds
// every pane again, tracing. agent is the manifest lookup by name (the
// caller's manifest set; the fold does no loading of its own).
func Pending(panes []*record.Pane, agent func(name string) *manifest.Agent, t Tuning, explain bool) {
	for _, p := range panes {
		if p.Verdict == nil || explain {
			p.Verdict = Fold(p, agent(p.Agent), t, explain)
		}
	}
}
