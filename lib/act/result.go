package act

import (
	"bytes"
	"encoding/json"
)

// Outcomes: closed.
const (
	OutcomeSent     = "sent"     // keys (or a text payload) delivered
	OutcomeReplied  = "replied"  // an answer over the claude hook lane or OpenCode's API
	OutcomeExited   = "exited"   // a synchronous exec child finished
	OutcomeSpawned  = "spawned"  // a detached supervisor launched
	OutcomeTimeout  = "timeout"  // an exec child killed at timeout_ms
	OutcomeRefused  = "refused"  // a gate, a payload rule or the lock said no
	OutcomeVanished = "vanished" // the pane went away
	OutcomeError    = "error"    // a broker failure (tmux refused, could not spawn)
)

// Exit codes of the broker.
const (
	ExitOK      = 0
	ExitError   = 1
	ExitUsage   = 2
	ExitVanish  = 3
	ExitRefused = 4
	ExitLocked  = 5
	ExitTimeout = 124
)

// Result is the act --json object: schema, action, pane, outcome,
// exit_code, reason, in that order; reason is null when there is none.
// cached follows on every --slot dispatch (false on a fire, true on a
// replay from the ledger) and is absent otherwise.
type Result struct {
	Schema   int     `json:"schema"`
	Action   string  `json:"action"`
	Pane     string  `json:"pane"`
	Outcome  string  `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Reason   *string `json:"reason"`
	Cached   *bool   `json:"cached,omitempty"`
	// Unsent marks an error that provably sent nothing (an API answer
	// whose connection was refused): a --slot dispatch frees its slot
	// rather than recording fired-unknown. Never serialized.
	Unsent bool `json:"-"`
}

// NewResult builds a result whose exit code follows from the outcome and
// reason (every outcome but exited, whose code is the child's).
func NewResult(action, pane, outcome, reason string) Result {
	r := Result{Schema: 1, Action: action, Pane: pane, Outcome: outcome}
	if reason != "" {
		r.Reason = &reason
	}
	switch outcome {
	case OutcomeSent, OutcomeReplied, OutcomeSpawned, OutcomeExited:
		r.ExitCode = ExitOK
	case OutcomeTimeout:
		r.ExitCode = ExitTimeout
	case OutcomeVanished:
		r.ExitCode = ExitVanish
	case OutcomeRefused:
		r.ExitCode = ExitRefused
		if reason == ReasonLocked {
			r.ExitCode = ExitLocked
		}
	default:
		r.ExitCode = ExitError
	}
	return r
}

// Exited is the result of a synchronous exec child that ran to its end:
// its own code passes through, even inside the reserved band.
func Exited(action, pane string, code int) Result {
	r := NewResult(action, pane, OutcomeExited, "")
	r.ExitCode = code
	return r
}

// ReasonString is the reason or "".
func (r Result) ReasonString() string {
	if r.Reason == nil {
		return ""
	}
	return *r.Reason
}

// Rank places a result on the fan-out ladder, best first: acted, locked, a
// gate refusal, vanished, timeout, a failed exec child, a broker error.
func Rank(r Result) int {
	switch r.Outcome {
	case OutcomeSent, OutcomeReplied, OutcomeSpawned:
		return 0
	case OutcomeExited:
		if r.ExitCode == 0 {
			return 0
		}
		return 5
	case OutcomeRefused:
		if r.ReasonString() == ReasonLocked {
			return 1
		}
		return 2
	case OutcomeVanished:
		return 3
	case OutcomeTimeout:
		return 4
	}
	return 6
}

// Worst is the exit code of a fan-out: the worst target's on the ladder (0
// only if every target acted; the first of equals).
func Worst(rs []Result) int {
	worst, code := -1, ExitOK
	for _, r := range rs {
		if k := Rank(r); k > worst {
			worst, code = k, r.ExitCode
		}
	}
	return code
}

// Envelope is the act --all --json document.
type Envelope struct {
	Schema  int      `json:"schema"`
	Results []Result `json:"results"`
}

// WhenDoc is the list document's when object.
type WhenDoc struct {
	State         []string `json:"state"`
	Detail        []string `json:"detail"`
	ContextPctMin *int64   `json:"context_pct_min"`
	ContextPctMax *int64   `json:"context_pct_max"`
}

// ListEntry is one action in the list document: name, label, kind, agents,
// when.
type ListEntry struct {
	Name   string   `json:"name"`
	Label  string   `json:"label"`
	Kind   string   `json:"kind"`
	Agents []string `json:"agents"`
	When   WhenDoc  `json:"when"`
}

// PaneEntry is a list entry with --pane: fireable and reason follow.
type PaneEntry struct {
	ListEntry
	Fireable bool    `json:"fireable"`
	Reason   *string `json:"reason"`
}

// Entry renders an action for the list document.
func Entry(a *Action) ListEntry {
	return ListEntry{
		Name: a.Name, Label: a.Label, Kind: a.Kind, Agents: a.Coverage(),
		When: WhenDoc{State: nonNil(a.When.State), Detail: nonNil(a.When.Detail),
			ContextPctMin: a.When.ContextPctMin, ContextPctMax: a.When.ContextPctMax},
	}
}

// ListDoc is {"schema":1,"actions":[...]}; the elements are ListEntry or
// PaneEntry values.
type ListDoc struct {
	Schema  int `json:"schema"`
	Actions any `json:"actions"`
}

// Marshal renders a document as one line of JSON without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
