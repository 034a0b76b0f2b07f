package scan

import "github.com/tmaproject/tma/lib/record"

// Streamed is the panes a cycle's record stream carries. Most panes of a
// server are shells that no stage can say anything about, and every stage
// after the scan is a process that decodes and re-encodes what it is given,
// so a plain shell is left out: the cycle record still lists every pane.
//
// A pane is carried when it holds an agent, has a class (remote, nested,
// ignored), or has any tma option (a stamp to clear, a mute, a hook
// registration). A window none of whose panes is carried still sends its
// first pane when a rollup is stored on it or its session, so the stamp
// sees the stale @agent_summary and clears it (an agent pane was killed).
// A --pane scan carries its pane whatever it is: explain asked for it.
func (r *Result) Streamed() []*record.Pane {
	if r.Cycle.Scoped {
		return r.Panes
	}
	out := make([]*record.Pane, 0, len(r.Panes))
	carried := map[string]bool{}
	for _, p := range r.Panes {
		if p.Agent != "" || p.Class != "" || len(p.Opts) > 0 {
			out = append(out, p)
			carried[p.WindowID] = true
		}
	}
	if len(out) == len(r.Panes) {
		return out
	}
	// The carriers, in pane order with the rest.
	var keep map[*record.Pane]bool
	for _, p := range r.Panes {
		if carried[p.WindowID] || p.WindowSummary == "" && p.SessionSummary == "" {
			continue
		}
		if keep == nil {
			keep = map[*record.Pane]bool{}
		}
		keep[p] = true
		carried[p.WindowID] = true
	}
	if keep == nil {
		return out
	}
	out = out[:0]
	for _, p := range r.Panes {
		if p.Agent != "" || p.Class != "" || len(p.Opts) > 0 || keep[p] {
			out = append(out, p)
		}
	}
	return out
}
