package stream

import (
	"encoding/json"

	"github.com/tmaproject/tma/lib/record"
)

// Event is one state transition, in the disjoint reading (done is not idle).
// From is "" for a pane that appeared, To "" for one that vanished.
type Event struct {
	Schema  int     `json:"schema"`
	AtMS    int64   `json:"at_ms"`
	Pane    string  `json:"pane"`
	Agent   string  `json:"agent"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	Detail  *string `json:"detail"`
	Locator string  `json:"locator"`
	Repo    *string `json:"repo"`
	Branch  *string `json:"branch"`
}

// Differ remembers the last cycle's rows.
type Differ struct {
	prev    map[string]record.AgentRow
	order   []string
	started bool
	lastKey []byte // the last sent document without its Volatile keys
}

// Events diffs one cycle (rows already filtered by the selectors) against
// the previous one. The first cycle only sets the baseline. A row whose
// cycle read the pane done and retired the mark (DoneCleared) is reported
// as the done it was, then its end, when this stream never saw it done.
func (d *Differ) Events(rows []*record.Row, atMS int64) []Event {
	cur := map[string]record.AgentRow{}
	cleared := map[string]bool{}
	var order []string
	for _, r := range rows {
		cur[r.Row.Pane] = r.Row
		cleared[r.Row.Pane] = r.DoneCleared
		order = append(order, r.Row.Pane)
	}
	defer func() { d.prev, d.order, d.started = cur, order, true }()
	if !d.started {
		return nil
	}
	var out []Event
	ev := func(a record.AgentRow, from, to string) Event {
		return Event{Schema: 1, AtMS: atMS, Pane: a.Pane, Agent: a.Agent, From: from, To: to,
			Detail: a.Detail, Locator: a.Locator, Repo: a.Repo, Branch: a.Branch}
	}
	for _, p := range order {
		now := cur[p]
		was, ok := d.prev[p]
		switch {
		case !ok:
			out = append(out, ev(now, "", now.Class()))
		case cleared[p] && was.Class() != "done" && now.Class() != "done":
			// Done came and went between two of this stream's cycles (the
			// cycle that read it done retired the mark): the completion
			// is still a transition, and then its end.
			done := now
			done.Detail = nil
			out = append(out, ev(done, was.Class(), "done"), ev(now, "done", now.Class()))
		case was.Class() != now.Class():
			out = append(out, ev(now, was.Class(), now.Class()))
		}
	}
	for _, p := range d.order {
		if _, ok := cur[p]; !ok {
			was := d.prev[p]
			out = append(out, ev(was, was.Class(), ""))
		}
	}
	return out
}

// Quiet reports whether a cycle's snapshot is left unprinted when it is the
// document sent last (Snapshot's changesOnly). Riding a daemon (push), a
// belt cycle prints only a change, so a quiet fleet prints nothing, and a
// wake's own cycle prints what it saw: --changes-only is a silent no-op in
// push mode (the manual), so the stream prints the same documents whichever
// mode it landed in. Polling, --changes-only decides.
func Quiet(push, own, changesOnly bool) bool {
	if push {
		return !own
	}
	return changesOnly
}

// Volatile are the row keys that move every cycle by design, so a change in
// them alone is no change: stamped_at_ms is refreshed on every cycle a
// working agent is re-read.
var Volatile = []string{"stamped_at_ms"}

// Snapshot renders the ls --json document of a cycle; with changesOnly it
// returns nil when the document is the one sent last but for the Volatile
// keys (the first is always sent; a sent document carries their current
// values).
func (d *Differ) Snapshot(rows []*record.Row, changesOnly bool) []byte {
	doc := record.Document{Schema: 1, Agents: []record.AgentRow{}}
	key := record.Document{Schema: 1, Agents: []record.AgentRow{}}
	for _, r := range rows {
		doc.Agents = append(doc.Agents, r.Row)
		k := r.Row
		k.StampedAtMS = nil
		key.Agents = append(key.Agents, k)
	}
	b, _ := json.Marshal(doc)
	kb, _ := json.Marshal(key)
	if changesOnly && d.lastKey != nil && string(kb) == string(d.lastKey) {
		return nil
	}
	d.lastKey = kb
	return b
}
