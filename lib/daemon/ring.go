package daemon

import (
	"fmt"
	"io"

	"github.com/tmaproject/tma/lib/record"
)

// RingCap is how many transitions the daemon holds.
const RingCap = 256

// Transition is one change of a pane's class (blocked, done, working,
// idle, unknown) as the daemon's cycles saw it, whether or not anything
// was notified. From is nil on the pane's first observation.
type Transition struct {
	Pane   string  `json:"pane"`
	Agent  string  `json:"agent"`
	From   *string `json:"from"`
	To     string  `json:"to"`
	Detail *string `json:"detail"`
	AtMS   int64   `json:"at_ms"`
	Src    string  `json:"src"`
}

// TransitionsDoc is `tma debug transitions --json`.
type TransitionsDoc struct {
	Schema      int          `json:"schema"`
	Cap         int          `json:"cap"`
	Recorded    int64        `json:"recorded"`
	Transitions []Transition `json:"transitions"`
}

// Ring holds the last RingCap transitions, oldest first, and remembers each
// pane's class to find the next one. It is pure: time comes in the rows.
type Ring struct {
	buf      []Transition
	next     int
	recorded int64
	last     map[string]string
}

// NewRing returns an empty ring.
func NewRing() *Ring { return &Ring{last: map[string]string{}} }

// Observe records the transitions one cycle's rows show against the last
// cycle, and returns them. A pane that is gone is forgotten (a pane id is
// never reused by its server).
func (r *Ring) Observe(rows []*record.Row, nowMS int64) []Transition {
	var out []Transition
	seen := map[string]bool{}
	for _, row := range rows {
		a := row.Row
		seen[a.Pane] = true
		to := a.Class()
		was, ok := r.last[a.Pane]
		if ok && was == to {
			continue
		}
		r.last[a.Pane] = to
		t := Transition{Pane: a.Pane, Agent: a.Agent, To: to, Detail: a.Detail, AtMS: nowMS, Src: row.Source}
		if ok {
			from := was
			t.From = &from
		}
		// The state's own start is the transition's time when the rows
		// carry it (a hook claim's event time, a capture's read).
		if a.Since != nil && *a.Since > 0 && *a.Since <= nowMS {
			t.AtMS = *a.Since
		}
		if t.Src == "" {
			t.Src = "-"
		}
		r.add(t)
		out = append(out, t)
	}
	for p := range r.last {
		if !seen[p] {
			delete(r.last, p)
		}
	}
	return out
}

func (r *Ring) add(t Transition) {
	r.recorded++
	if len(r.buf) < RingCap {
		r.buf = append(r.buf, t)
		return
	}
	r.buf[r.next] = t
	r.next = (r.next + 1) % RingCap
}

// Doc is the ring as its JSON document, oldest first.
func (r *Ring) Doc() *TransitionsDoc {
	d := &TransitionsDoc{Schema: 1, Cap: RingCap, Recorded: r.recorded, Transitions: []Transition{}}
	d.Transitions = append(d.Transitions, r.buf[r.next:]...)
	d.Transitions = append(d.Transitions, r.buf[:r.next]...)
	return d
}

// WriteText renders the document as `tma debug transitions` prints it.
func (d *TransitionsDoc) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "transitions (%d held, cap %d, %d recorded over the daemon's life):\n", len(d.Transitions), d.Cap, d.Recorded); err != nil {
		return err
	}
	for _, t := range d.Transitions {
		from := "-"
		if t.From != nil {
			from = *t.From
		}
		if _, err := fmt.Fprintf(w, "  %-6s %-8s -> %-8s at=%d src=%s\n", t.Pane, from, t.To, t.AtMS, t.Src); err != nil {
			return err
		}
	}
	return nil
}
