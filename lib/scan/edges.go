package scan

// Edges turns the output tmux pushes for each pane into active->quiet
// edges: a pane that wrote output and then stayed quiet for the quiet
// window has one edge, reported once, dated by its burst's last output. A
// burst that goes on (more output before the window closes) only moves its
// edge later. The clock is the caller's: every time is epoch ms.
type Edges struct {
	pending map[string]int64 // pane -> the latest output not yet reported
}

// Note takes each pane's latest output.
func (e *Edges) Note(out map[string]int64) {
	for pane, at := range out {
		if e.pending == nil {
			e.pending = map[string]int64{}
		}
		if at > e.pending[pane] {
			e.pending[pane] = at
		}
	}
}

// Due returns the panes whose output has been quiet for quietMS at now,
// each with its burst's last output, and forgets them.
func (e *Edges) Due(now, quietMS int64) map[string]int64 {
	var due map[string]int64
	for pane, at := range e.pending {
		if now-at >= quietMS {
			if due == nil {
				due = map[string]int64{}
			}
			due[pane] = at
			delete(e.pending, pane)
		}
	}
	return due
}

// Next is when the earliest pending edge falls due, 0 when none is pending.
func (e *Edges) Next(quietMS int64) int64 {
	var next int64
	for _, at := range e.pending {
		if t := at + quietMS; next == 0 || t < next {
			next = t
		}
	}
	return next
}
