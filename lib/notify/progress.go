package notify

import (
	"sort"

	"github.com/tmaproject/tma/lib/record"
)

// Progress is osc_progress's memory of the last pass: which windows had a
// working agent, and the pane each indicator went out through. Only a
// resident firer has a last pass, which is why only the daemon does this.
type Progress struct {
	lit map[string]string // window id → pane
}

// Edge is one sequence to write: Data (already in its passthrough
// envelope) to the tty of Pane.
type Edge struct {
	Pane string
	Data string
}

// Update compares this pass's working windows with the last: a window that
// gained its first working agent gets the indeterminate state, one whose
// last working agent finished gets the clear, and nothing is written in
// between.
func (p *Progress) Update(panes []*record.Pane, rows []*record.Row) []Edge {
	if p.lit == nil {
		p.lit = map[string]string{}
	}
	window := map[string]string{}
	for _, pn := range panes {
		window[pn.Pane] = pn.WindowID
	}
	working := map[string]string{} // window → its first working agent pane
	for _, r := range rows {
		w := window[r.Row.Pane]
		if w == "" || r.Row.State != "working" {
			continue
		}
		if cur, ok := working[w]; !ok || r.Row.Pane < cur {
			working[w] = r.Row.Pane
		}
	}
	var edges []Edge
	for _, w := range sortedKeys(working) {
		if _, on := p.lit[w]; !on {
			edges = append(edges, Edge{Pane: working[w], Data: Passthrough(ProgressOn)})
			p.lit[w] = working[w]
		}
	}
	for _, w := range sortedKeys(p.lit) {
		if _, still := working[w]; !still {
			edges = append(edges, Edge{Pane: p.lit[w], Data: Passthrough(ProgressClear)})
			delete(p.lit, w)
		}
	}
	return edges
}

// ClearAll clears every lit indicator (shutdown, or osc_progress turned
// off by a reload) so no tab stays lit.
func (p *Progress) ClearAll() []Edge {
	var edges []Edge
	for _, w := range sortedKeys(p.lit) {
		edges = append(edges, Edge{Pane: p.lit[w], Data: Passthrough(ProgressClear)})
		delete(p.lit, w)
	}
	return edges
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
