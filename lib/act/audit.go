package act

import (
	"os"
	"path/filepath"
)

// AuditLine is one [act] log line: schema, at, batch, source, device,
// action, kind, pane, agent, episode_ms, outcome, reason, exit_code, repeat,
// pending_tool, pending_call, in that order. It never carries a pane title,
// a key, a token, the text payload, or agent prose (pending_summary).
type AuditLine struct {
	Schema      int     `json:"schema"`
	At          int64   `json:"at"`
	Batch       *string `json:"batch"`  // shared by every fire of one --all
	Source      string  `json:"source"` // the surface that asked: cli, menu, picker, watch, …
	Device      *string `json:"device"` // act --device; null without it
	Action      string  `json:"action"`
	Kind        string  `json:"kind"` // the arm that delivered: keys, text, exec
	Pane        string  `json:"pane"`
	Agent       *string `json:"agent"`
	EpisodeMS   *int64  `json:"episode_ms"`
	Outcome     string  `json:"outcome"`
	Reason      *string `json:"reason"`
	ExitCode    int     `json:"exit_code"`
	Repeat      *int    `json:"repeat"` // the run's length when the repeat warning fired
	PendingTool *string `json:"pending_tool"`
	PendingCall *string `json:"pending_call"`
}

// AppendAudit appends one line to the act log at path: the parent directory
// is created, the file is created 0600 and only ever appended to. A log that
// cannot be written is skipped silently: an audit record never turns a
// delivered action into a failure.
func AppendAudit(path string, l AuditLine) {
	if path == "" {
		return
	}
	b, err := Marshal(l)
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}
