package record

import (
	"encoding/json"
	"fmt"
)

// Version is the record format version carried in every record's "v" key.
// Changes are additive: a new key never bumps it.
const Version = 1

// Kinds of record.
const (
	KindCycle = "cycle"
	KindPane  = "pane"
	KindRow   = "row"
	KindError = "error"
	KindEnd   = "end"
)

// Head is the part every record shares; it is enough to route a line.
type Head struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
}

// Client is one attached tmux client as seen at the start of a cycle.
type Client struct {
	Name     string `json:"name"`
	Pane     string `json:"pane"`     // the pane the client displays
	Session  string `json:"session"`  // its session name
	Activity int64  `json:"activity"` // epoch seconds of its last input
	Control  bool   `json:"control,omitempty"`
}

// Cycle opens a cycle. Everything that follows until the matching End was
// observed at NowMS.
type Cycle struct {
	Head
	NowMS       int64    `json:"now_ms"`
	Server      string   `json:"server"` // #{socket_path}
	Host        string   `json:"host"`
	TmuxVersion string   `json:"tmux_version"`
	Clients     []Client `json:"clients"`
	Scoped      bool     `json:"scoped,omitempty"` // a --pane scan: not every pane was listed
	LastPollMS  int64    `json:"last_poll_ms"`     // the stored @tma_last_poll
	// LastStatusMS is the stored @tma_status_at: the status-line driver's
	// own mark, apart from every other cycle's.
	LastStatusMS int64    `json:"last_status_ms,omitempty"`
	Panes        []string `json:"panes,omitempty"` // every pane id on the server, agent or not
}

// End closes a cycle so streaming consumers know it is complete.
type End struct {
	Head
	NowMS int64 `json:"now_ms"`
}

// Error carries a failure in-band so it reaches the end of a pipeline; the
// last stage exits non-zero when it sees one.
type Error struct {
	Head
	Tool    string `json:"tool"`
	Message string `json:"message"`
	Pane    string `json:"pane,omitempty"`
	Hint    string `json:"hint,omitempty"`
	Code    int    `json:"code,omitempty"` // the exit code the last stage should use; 0 means 1
}

// Pane classes put a pane out of the fold's scope before any rule runs.
const (
	ClassNone    = ""
	ClassRemote  = "remote"  // foreground is ssh, mosh, docker, podman, kubectl
	ClassNested  = "nested"  // foreground is another multiplexer client
	ClassIgnored = "ignored" // @agent_ignore is set
)

// Capture is one screen read: the raw capture-pane -e text and when it was read.
type Capture struct {
	AtMS int64  `json:"at_ms"`
	Text string `json:"text"`
}

// Pane is one pane's observation, and once folded, its verdict.
type Pane struct {
	Head
	NowMS          int64             `json:"now_ms"`
	Pane           string            `json:"pane"`
	Session        string            `json:"session"`
	SessionID      string            `json:"session_id"`
	Window         int               `json:"window"`
	WindowID       string            `json:"window_id"`
	Index          int               `json:"index"`
	PanePID        int               `json:"pane_pid"`
	Command        string            `json:"command"`
	Title          string            `json:"title"`
	CWD            string            `json:"cwd"`
	Width          int               `json:"width"`
	Height         int               `json:"height"`
	AlternateOn    bool              `json:"alternate_on"`
	InMode         bool              `json:"in_mode"`
	Scroll         int               `json:"scroll"` // -1 outside copy mode
	WindowActivity int64             `json:"window_activity"`
	Active         bool              `json:"active"`
	Dead           bool              `json:"dead"`
	Opts           map[string]string `json:"opts"` // every @agent_*/@tma_* option found on the pane (without @agent_name, the standalone ones)
	WindowSummary  string            `json:"window_summary"`
	SessionSummary string            `json:"session_summary"`

	Class             string   `json:"class"`
	Agent             string   `json:"agent"`    // manifest stem, "" when none
	Identity          string   `json:"identity"` // process, hook or "" (how Agent was found)
	AgentPID          int      `json:"agent_pid"`
	AgentAlive        bool     `json:"agent_alive"` // the agent (or registered) pid is in the pane's tree
	ForegroundIsAgent bool     `json:"foreground_is_agent"`
	Procs             int      `json:"procs"`           // processes in the pane's tree, -1 when the walk failed
	ShellOnly         bool     `json:"shell_only"`      // the tree holds nothing but a shell
	ViewerActivity    int64    `json:"viewer_activity"` // latest input (epoch s) of a client displaying the pane
	Capture           *Capture `json:"capture"`         // nil when not captured
	CaptureSkipped    string   `json:"capture_skipped,omitempty"`
	Notes             []string `json:"notes,omitempty"`

	// QuietEdge is the last output (epoch ms) of a burst the pane has since
	// been quiet after for [daemon] quiet_ms: an active->quiet edge, which
	// only the daemon's scan reports, once per burst.
	QuietEdge int64 `json:"quiet_edge_ms,omitempty"`

	// Manifest is the digest of the agent's manifest as the scan loaded it
	// (manifest.Digest): a screen read under it is committed with it in
	// @agent_hash, and a quiet pane whose @agent_hash differs is read again.
	Manifest string `json:"manifest,omitempty"`

	Verdict *Verdict `json:"verdict,omitempty"`
}

// Locator is session:window.pane.
func (p *Pane) Locator() string { return fmt.Sprintf("%s:%d.%d", p.Session, p.Window, p.Index) }

// Verdict actions.
const (
	ActPublish = "publish" // write the tuple
	ActHold    = "hold"    // keep the stored tuple; maybe refresh stamped_at
	ActClear   = "clear"   // the agent is gone: unset the pane's set
	ActNone    = "none"    // not an agent pane, nothing to write
)

// Evidence names the single item that decided a verdict.
type Evidence struct {
	Source string `json:"source"` // hook, capture, process
	At     int64  `json:"at"`
	Label  string `json:"label"`
}

// RuleTrace is one screen rule as evaluated, kept for debug explain.
type RuleTrace struct {
	Index    int    `json:"index"`
	State    string `json:"state"`
	Detail   string `json:"detail"`
	Priority int    `json:"priority"`
	Region   string `json:"region"`
	Label    string `json:"label"`
	Matched  bool   `json:"matched"`
	Excerpt  string `json:"excerpt,omitempty"`
}

// Verdict is what the fold decided for one pane, and everything the stamp
// needs to commit it with a guard.
type Verdict struct {
	State        string `json:"state"`
	Detail       string `json:"detail"`
	Action       string `json:"action"`
	Source       string `json:"source"`
	EvidenceAt   int64  `json:"evidence_at"`
	Since        int64  `json:"since"`
	EpisodeReset bool   `json:"episode_reset"`
	SetAttention bool   `json:"set_attention"`
	ClearAttn    bool   `json:"clear_attention"`
	MayOverride  bool   `json:"may_override"`
	Refresh      bool   `json:"refresh"`                // a hold that still refreshes stamped_at (a screen was read)
	HistoryView  bool   `json:"history_view,omitempty"` // a skip_state_update rule matched: frozen
	GuardAt      int64  `json:"guard_at"`               // commit only while @agent_evidence_at is at most this
	// Anchors are tma's internal clocks kept on the pane, by option name:
	// @tma_idle_since (the dwell), @tma_unblock_seen (a blocked claim whose
	// dialog is gone), @tma_reg_dead_since (a pid-less registration in a
	// bare shell). The value after commit; 0 means unset.
	Anchors map[string]int64 `json:"anchors,omitempty"`
	Winning Evidence         `json:"winning_evidence"`
	Rules   []RuleTrace      `json:"rules,omitempty"`
	Trace   []string         `json:"trace,omitempty"`
}

// Unmarshal decodes one line into the concrete record its kind names.
// Unknown kinds come back as nil with no error so filters can pass them on.
func Unmarshal(line []byte) (Head, any, error) {
	if h, v, ok := unmarshalFast(line); ok {
		return h, v, nil
	}
	return unmarshalJSON(line)
}

// unmarshalJSON is Unmarshal by encoding/json alone: the reference the
// hand codec must agree with, and where every line it refuses goes.
func unmarshalJSON(line []byte) (Head, any, error) {
	var h Head
	if err := json.Unmarshal(line, &h); err != nil {
		return h, nil, err
	}
	if h.V != Version {
		return h, nil, fmt.Errorf("unsupported record version %d (want %d)", h.V, Version)
	}
	var v any
	switch h.Kind {
	case KindCycle:
		v = new(Cycle)
	case KindEnd:
		v = new(End)
	case KindError:
		v = new(Error)
	case KindPane:
		v = new(Pane)
	case KindRow:
		v = new(Row)
	case "":
		return h, nil, fmt.Errorf("record has no kind")
	default:
		return h, nil, nil
	}
	if err := json.Unmarshal(line, v); err != nil {
		return h, nil, fmt.Errorf("%s record: %v", h.Kind, err)
	}
	return h, v, nil
}
