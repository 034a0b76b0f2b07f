package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/record"
)

const (
	// TTLMS is how long a receipt answers for its slot: a later dispatch on
	// the slot replays it; after it, the slot fires again.
	TTLMS int64 = 24 * 60 * 60 * 1000
	// Keep is how many receipts eviction keeps (the newest). It never
	// evicts by age: a receipt older than TTLMS stays listed until then.
	Keep = 4096
	// MaxID bounds a slot id and a device name, in bytes.
	MaxID = 256
	// ReasonFiredUnknown is the reason an error receipt records: the broker
	// cannot prove the keystroke did not land, so a retry replays the doubt.
	ReasonFiredUnknown = "fired-unknown"
)

// outcomes is the closed outcome set a receipt may carry (act's).
var outcomes = map[string]bool{"sent": true, "replied": true, "exited": true, "spawned": true,
	"timeout": true, "refused": true, "vanished": true, "error": true}

// Entry is one ledger line: a receipt, or a claim still in flight (outcome
// and exit_code null, pid and deadline_ms set). Keys in order: v, slot,
// pane, action, device, at_ms, outcome, exit_code, reason, nonce, and for a
// claim pid, deadline_ms. nonce names the one dispatch that claimed the slot.
type Entry struct {
	V          int     `json:"v"`
	Slot       string  `json:"slot"`
	Pane       string  `json:"pane"`
	Action     string  `json:"action"`
	Device     *string `json:"device"`
	AtMS       int64   `json:"at_ms"`
	Outcome    *string `json:"outcome"`
	ExitCode   *int    `json:"exit_code"`
	Reason     *string `json:"reason"`
	Nonce      string  `json:"nonce"`
	PID        int     `json:"pid,omitempty"`
	DeadlineMS int64   `json:"deadline_ms,omitempty"`
}

// InFlight reports whether the entry is a claim without an outcome yet.
func (e Entry) InFlight() bool { return e.Outcome == nil }

// Receipt is the tma receipts element: slot, pane, action, device, at_ms,
// outcome, exit_code, reason, in that order; device and reason are null
// when absent.
type Receipt struct {
	Slot     string  `json:"slot"`
	Pane     string  `json:"pane"`
	Action   string  `json:"action"`
	Device   *string `json:"device"`
	AtMS     int64   `json:"at_ms"`
	Outcome  string  `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Reason   *string `json:"reason"`
}

// Doc is the tma receipts --json document.
type Doc struct {
	Schema   int       `json:"schema"`
	Receipts []Receipt `json:"receipts"`
}

// Receipt is a finished entry's receipt (the zero receipt for a claim).
func (e Entry) Receipt() Receipt {
	r := Receipt{Slot: e.Slot, Pane: e.Pane, Action: e.Action, Device: e.Device, AtMS: e.AtMS, Reason: e.Reason}
	if e.Outcome != nil {
		r.Outcome = *e.Outcome
	}
	if e.ExitCode != nil {
		r.ExitCode = *e.ExitCode
	}
	return r
}

// Done is the terminal entry for a dispatch's result. An error outcome is
// recorded with reason fired-unknown.
func Done(slot, nonce string, r Receipt) Entry {
	out, code := r.Outcome, r.ExitCode
	reason := r.Reason
	if out == "error" {
		s := ReasonFiredUnknown
		reason = &s
	}
	return Entry{V: 1, Slot: slot, Pane: r.Pane, Action: r.Action, Device: r.Device, AtMS: r.AtMS,
		Outcome: &out, ExitCode: &code, Reason: reason, Nonce: nonce}
}

// CheckID validates a slot id or a device name: non-empty, at most MaxID
// bytes of valid UTF-8 without control characters (so a text line of
// receipts keeps its columns).
func CheckID(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s is empty", what)
	case len(s) > MaxID:
		return fmt.Errorf("%s is over %d bytes", what, MaxID)
	case !utf8.ValidString(s) || strings.IndexFunc(s, record.IsControl) >= 0:
		return fmt.Errorf("%s %q carries a control character or invalid UTF-8", what, s)
	}
	return nil
}

// LineError is a ledger line that cannot be parsed.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Parse reads a ledger. Every line must be one valid entry: unknown keys,
// a missing field, an outcome outside the closed set, a claim without its
// pid, a slot twice: each is a LineError, never a guess.
func Parse(b []byte) ([]Entry, error) {
	var out []Entry
	seen := map[string]int{}
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(line) == 0 && i == bytes.Count(b, []byte("\n")) {
			break // the final newline
		}
		e, err := parseLine(line)
		if err == nil {
			if prev, dup := seen[e.Slot]; dup {
				err = fmt.Errorf("slot %q again (first on line %d)", e.Slot, prev)
			}
		}
		if err != nil {
			return nil, &LineError{Line: i + 1, Err: err}
		}
		seen[e.Slot] = i + 1
		out = append(out, e)
	}
	return out, nil
}

func parseLine(line []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, err
	}
	if dec.More() {
		return e, errors.New("trailing data after the entry")
	}
	switch {
	case e.V != 1:
		return e, fmt.Errorf("unknown entry version %d", e.V)
	case CheckID("slot", e.Slot) != nil:
		return e, CheckID("slot", e.Slot)
	case e.Action == "":
		return e, errors.New("no action")
	case e.Device != nil && CheckID("device", *e.Device) != nil:
		return e, CheckID("device", *e.Device)
	case strings.IndexFunc(e.Pane+e.Action+e.Nonce, record.IsControl) >= 0 || e.Reason != nil && strings.IndexFunc(*e.Reason, record.IsControl) >= 0:
		return e, errors.New("a control character in pane, action, nonce or reason")
	case e.Nonce == "":
		return e, errors.New("no nonce")
	case e.AtMS <= 0:
		return e, errors.New("no at_ms")
	case e.Outcome == nil:
		if e.ExitCode != nil || e.PID <= 0 || e.DeadlineMS <= 0 {
			return e, errors.New("a claim in flight needs pid and deadline_ms and no exit_code")
		}
	default:
		if !outcomes[*e.Outcome] {
			return e, fmt.Errorf("unknown outcome %q", *e.Outcome)
		}
		if e.ExitCode == nil || e.PID != 0 || e.DeadlineMS != 0 {
			return e, errors.New("a receipt needs exit_code and no pid or deadline_ms")
		}
	}
	return e, nil
}

// Encode renders a ledger, one entry per line.
func Encode(es []Entry) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, e := range es {
		_ = enc.Encode(e) // an Entry always encodes
	}
	return b.Bytes()
}

// Settle turns every claim whose claimer is gone (alive says no) or whose
// deadline passed into an error receipt with reason fired-unknown, dated
// now: the claimer may have sent the keys before it died. changed reports
// whether any did.
func Settle(es []Entry, now int64, alive func(pid int) bool) (out []Entry, changed bool) {
	out = make([]Entry, 0, len(es))
	for _, e := range es {
		if e.InFlight() && (now > e.DeadlineMS || !alive(e.PID)) {
			e = Done(e.Slot, e.Nonce, Receipt{Pane: e.Pane, Action: e.Action, Device: e.Device, AtMS: now, Outcome: "error", ExitCode: 1})
			changed = true
		}
		out = append(out, e)
	}
	return out, changed
}

// State is where a slot stands.
type State int

const (
	// Free: no entry, or a receipt past its TTL; a dispatch may claim it.
	Free State = iota
	// Answered: a receipt within its TTL; a dispatch replays it.
	Answered
	// Claimed: a dispatch is in flight on it.
	Claimed
)

// Lookup says where slot stands at now, with its entry (nil when Free
// without one).
func Lookup(es []Entry, slot string, now int64) (State, *Entry) {
	for i := range es {
		e := &es[i]
		if e.Slot != slot {
			continue
		}
		switch {
		case e.InFlight():
			return Claimed, e
		case now-e.AtMS <= TTLMS:
			return Answered, e
		}
		return Free, e
	}
	return Free, nil
}

// Put replaces slot's entry with e, appended as the newest.
func Put(es []Entry, e Entry) []Entry {
	out := make([]Entry, 0, len(es)+1)
	for _, x := range es {
		if x.Slot != e.Slot {
			out = append(out, x)
		}
	}
	return append(out, e)
}

// Finish records a dispatch's terminal entry: it replaces the slot's entry
// when that is this dispatch's (same nonce: its claim, or the fired-unknown
// receipt another process settled it to) or when the slot has none. ok is
// false when another dispatch owns the slot now.
func Finish(es []Entry, e Entry) (out []Entry, ok bool) {
	for _, x := range es {
		if x.Slot == e.Slot && x.Nonce != e.Nonce {
			return es, false
		}
	}
	return Put(es, e), true
}

// Release drops this dispatch's claim (nonce) on slot: the slot is free
// again. A slot another dispatch owns is left alone.
func Release(es []Entry, slot, nonce string) []Entry {
	out := make([]Entry, 0, len(es))
	for _, x := range es {
		if x.Slot == slot && x.Nonce == nonce && x.InFlight() {
			continue
		}
		out = append(out, x)
	}
	return out
}

// Evict keeps the newest keep receipts (by at_ms; file order between
// equals) and every claim in flight, in their order.
func Evict(es []Entry, keep int) []Entry {
	var idx []int
	for i, e := range es {
		if !e.InFlight() {
			idx = append(idx, i)
		}
	}
	if len(idx) <= keep {
		return es
	}
	sort.SliceStable(idx, func(a, b int) bool { return es[idx[a]].AtMS > es[idx[b]].AtMS })
	drop := map[int]bool{}
	for _, i := range idx[keep:] {
		drop[i] = true
	}
	out := make([]Entry, 0, keep)
	for i, e := range es {
		if !drop[i] {
			out = append(out, e)
		}
	}
	return out
}

// Receipts lists the finished entries, oldest first (by at_ms, then file
// order), limited to slot when it is not empty. Claims in flight are not
// listed.
func Receipts(es []Entry, slot string) []Receipt {
	out := []Receipt{}
	for _, e := range es {
		if e.InFlight() || slot != "" && e.Slot != slot {
			continue
		}
		out = append(out, e.Receipt())
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].AtMS < out[b].AtMS })
	return out
}
