package record

import "encoding/json"

// AgentRow is the resolved agent row of the user-facing contract: the element
// of `tma ls --json`'s agents array and the body of `tma wait --json`. The
// field order is the contract's key order; a nil pointer is JSON null, never
// a dropped key.
type AgentRow struct {
	Pane              string   `json:"pane"`
	Agent             string   `json:"agent"`
	State             string   `json:"state"`
	Detail            *string  `json:"detail"`
	Since             *int64   `json:"since"`
	SinceMS           *int64   `json:"since_ms"`
	EpisodeMS         *int64   `json:"episode_ms"`
	Locator           string   `json:"locator"`
	Title             string   `json:"title"`
	Attention         bool     `json:"attention"`
	Done              bool     `json:"done"`
	Session           *string  `json:"session"`
	Transcript        *string  `json:"transcript"`
	PermissionRequest *string  `json:"permission_request"`
	StampedAtMS       *int64   `json:"stamped_at_ms"`
	Context           *int64   `json:"context"`
	ContextAtMS       *int64   `json:"context_at_ms"`
	Muted             bool     `json:"muted"`
	Tokens            *int64   `json:"tokens"`
	Quota             *Quota   `json:"quota"`
	CostUSD           *float64 `json:"cost_usd"`
	Repo              *string  `json:"repo"`
	Branch            *string  `json:"branch"`
	Worktree          *bool    `json:"worktree"`
	PendingTool       *string  `json:"pending_tool"`
	PendingCall       *string  `json:"pending_call"`
	PendingSummary    *string  `json:"pending_summary"`
	Server            string   `json:"server"`
	Host              string   `json:"host"`
}

// Quota is the account rate-limit window closest to exhaustion.
type Quota struct {
	Pct      int64  `json:"pct"`
	Window   string `json:"window"`
	ResetsAt *int64 `json:"resets_at_ms"`
	AtMS     *int64 `json:"at_ms"`
}

// Class is the disjoint surface class: done for an idle pane with attention.
func (r *AgentRow) Class() string {
	if r.Done {
		return "done"
	}
	return r.State
}

// Row is one resolved agent pane as tma-stamp emits it: the contract row plus
// what the surfaces need to select and sort without asking tmux again.
type Row struct {
	Head
	NowMS       int64    `json:"now_ms"`
	Row         AgentRow `json:"row"`
	TmuxSession string   `json:"tmux_session"`
	Window      int      `json:"window"`
	Index       int      `json:"index"`
	CWD         string   `json:"cwd"`
	Active      bool     `json:"active"`
	// Source is the evidence source of the verdict (hook, capture,
	// process): the daemon's transitions ring names it.
	Source string `json:"source,omitempty"`
	// DoneCleared: the pane was done (idle with attention) when this
	// cycle read it, and is not after its commit (a key in a client showing
	// it retired the mark, or it went back to work). A stream that never saw
	// the done still reports the completion.
	DoneCleared bool `json:"done_cleared,omitempty"`
}

// Document is the schema-1 `ls --json` document.
type Document struct {
	Schema int        `json:"schema"`
	Agents []AgentRow `json:"agents"`
}

// MarshalRowObject renders one row as a schema-1 object (wait --json): the
// schema key first, then the row's keys in contract order.
func MarshalRowObject(r AgentRow) ([]byte, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"schema":1,`), body[1:]...)
	return out, nil
}
