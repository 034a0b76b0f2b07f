package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TailBytes is how much of a rollout's end is read: the last token_count
// record and the turn_context before it sit in the final lines (Codex
// 0.171 writes a few KiB per turn; the session's opening line, which
// carries the whole system prompt, is never needed).
const TailBytes = 64 << 10

// rolloutLine is one rollout record, as far as tma reads it.
type rolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type tokenCountT struct {
	Type string `json:"type"`
	Info *struct {
		// LastTokenUsage is the last request's: what the window holds
		// now. total_token_usage is the session's sum (spend).
		LastTokenUsage *struct {
			TotalTokens *float64 `json:"total_tokens"`
		} `json:"last_token_usage"`
		ModelContextWindow *float64 `json:"model_context_window"`
	} `json:"info"`
	// RateLimits is the snapshot Codex parsed from the last response's
	// x-codex-* headers (testdata/codex-rollout-quota.jsonl); a response
	// without them leaves both windows null.
	RateLimits *struct {
		Primary   *codexWindow `json:"primary"`
		Secondary *codexWindow `json:"secondary"`
	} `json:"rate_limits"`
}

type codexWindow struct {
	UsedPercent     *float64 `json:"used_percent"`
	WindowMinutes   *float64 `json:"window_minutes"`
	ResetsAt        *float64 `json:"resets_at"`         // epoch seconds
	ResetsInSeconds *float64 `json:"resets_in_seconds"` // older releases
}

type turnContextT struct {
	Model string `json:"model"`
}

// rollout reads the newest token_count record of a rollout's lines (and
// the model of the turn_context before it). The first line may be cut
// (a tail read): a line that does not parse is skipped, never fatal.
// Lines with no token_count yield an empty reading.
func rollout(b []byte) (Reading, error) {
	var r Reading
	var found, model bool
	lines := bytes.Split(b, []byte("\n"))
	for i := len(lines) - 1; i >= 0 && !(found && model); i-- {
		l := bytes.TrimSpace(lines[i])
		isCount := bytes.Contains(l, []byte(`"token_count"`))
		isTurn := bytes.Contains(l, []byte(`"turn_context"`))
		if len(l) == 0 || !isCount && !isTurn {
			continue
		}
		var rl rolloutLine
		if json.Unmarshal(l, &rl) != nil {
			continue
		}
		switch {
		case !found && rl.Type == "event_msg" && isCount:
			var tc tokenCountT
			if json.Unmarshal(rl.Payload, &tc) != nil || tc.Type != "token_count" || tc.Info == nil {
				continue // a count before the first answer carries no info
			}
			found = true
			r.AtMS = stamp(rl.Timestamp)
			window := whole(tc.Info.ModelContextWindow, MaxTokens)
			if u := tc.Info.LastTokenUsage; u != nil && u.TotalTokens != nil {
				r.Tokens = level(*u.TotalTokens)
				r.ContextPct = ratio(*r.Tokens, window)
			}
			if rl := tc.RateLimits; rl != nil {
				r.Quota = codexQuota(rl.Primary, rl.Secondary, r.AtMS)
			}
		case !model && rl.Type == "turn_context":
			var t turnContextT
			if json.Unmarshal(rl.Payload, &t) == nil && t.Model != "" {
				r.Model = cleanModel(t.Model)
				model = true
			}
		}
	}
	if !found {
		// The model alone is not evidence of a newer reading.
		return Reading{}, nil
	}
	return r, nil
}

func codexQuota(primary, secondary *codexWindow, atMS int64) *Quota {
	var q *Quota
	for i, w := range []*codexWindow{primary, secondary} {
		if w == nil {
			continue
		}
		p := pct(w.UsedPercent)
		if p == nil || q != nil && q.Pct >= *p {
			continue
		}
		q = &Quota{Pct: *p, Window: [2]string{"primary", "secondary"}[i]}
		if w.WindowMinutes != nil {
			switch whole(w.WindowMinutes, MaxTokens) {
			case 300:
				q.Window = "5h"
			case 10080:
				q.Window = "7d"
			}
		}
		if at := whole(w.ResetsAt, MaxEpochMS/1000); at > 0 {
			q.ResetsAtMS = at * 1000
		} else if in := whole(w.ResetsInSeconds, MaxEpochMS/1000); w.ResetsInSeconds != nil && atMS > 0 {
			q.ResetsAtMS = atMS + in*1000
		}
	}
	return q
}

// stamp reads a rollout timestamp (RFC 3339, UTC) as epoch ms; 0 when it
// does not parse.
func stamp(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// RolloutPath reports whether path names a Codex rollout file
// (…/rollout-<time>-<thread>.jsonl): the transcript path comes from the
// agent's payload, and no other file is read.
func RolloutPath(path string) bool {
	b := filepath.Base(path)
	return filepath.IsAbs(path) && strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
}

// ReadTail reads the last n bytes of a regular file.
func ReadTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// ReadRollout is the newest reading of the rollout at path (its last
// TailBytes).
func ReadRollout(path string) (Reading, error) {
	if !RolloutPath(path) {
		return Reading{}, fmt.Errorf("%s: not a Codex rollout path", path)
	}
	b, err := ReadTail(path, TailBytes)
	if err != nil {
		return Reading{}, err
	}
	return rollout(b)
}
