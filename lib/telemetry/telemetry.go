package telemetry

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// The compiled-in formats, as a manifest's [telemetry.context] format names
// them (docs/telemetry.md has what each field is and where it was seen).
const (
	ClaudeStatusline = "claude-statusline-json"
	CodexRollout     = "codex-rollout-jsonl"
	PiContext        = "pi-context-json"
	CursorStatusline = "cursor-statusline-json"
)

// Formats is every format Parse reads.
var Formats = []string{ClaudeStatusline, CodexRollout, CursorStatusline, PiContext}

// ContextKind is the event name the statusline shim sends
// (`tma event --kind context`): a payload that is telemetry and nothing
// else, never a state claim.
const ContextKind = "context"

// Known reports whether format is one Parse reads.
func Known(format string) bool {
	for _, f := range Formats {
		if f == format {
			return true
		}
	}
	return false
}

// CarriesWindow reports whether a format's payload brings the window its
// token count is divided by (so the gauge never needs [telemetry.windows]).
// Every compiled-in format does; doctor's unrecognized: label applies only
// to a format that does not.
func CarriesWindow(format string) bool { return Known(format) }

// Reading is what one payload reports. A nil field was not reported, which
// is never the same as zero.
type Reading struct {
	// AtMS is the payload's own time (a rollout line's timestamp), 0 when
	// it carries none: the receiver's clock dates it then.
	AtMS       int64
	ContextPct *int64 // 0-100, the share of the window in use
	Tokens     *int64 // tokens in the window now: a level, never spend
	Model      string
	Quota      *Quota
	CostUSD    *float64
}

// Quota is the account rate-limit window closest to exhaustion.
type Quota struct {
	Pct        int64
	Window     string // 5h, 7d, primary, secondary
	ResetsAtMS int64  // 0 when not reported
}

// Empty reports whether the reading carries nothing to stamp.
func (r Reading) Empty() bool {
	return r.ContextPct == nil && r.Tokens == nil && r.Model == "" && r.Quota == nil && r.CostUSD == nil
}

// Gauge reports whether the reading carries the context gauge itself
// (a percent or a level), the part a hook event's payload may add.
func (r Reading) Gauge() bool { return r.ContextPct != nil || r.Tokens != nil }

// Parse reads one payload in format. A payload that is not what the format
// expects is an error naming the format; a payload that is well formed but
// reports nothing yet (Claude before its first answer) is an empty Reading.
func Parse(format string, payload []byte) (Reading, error) {
	switch format {
	case ClaudeStatusline, CursorStatusline:
		return statusline(format, payload)
	case CodexRollout:
		return rollout(payload)
	case PiContext:
		return piContext(payload)
	}
	return Reading{}, fmt.Errorf("unknown telemetry format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// ModelMax bounds a stamped model name; longer ones are cut on a rune.
const ModelMax = 100

// cleanModel keeps a model name that is safe to stamp: no controls, one
// line, bounded.
func cleanModel(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > ModelMax {
		cut := ModelMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// pct rounds a percentage to the gauge's integer and clamps it to 0-100;
// nil for anything that is not a finite number.
func pct(v *float64) *int64 {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return nil
	}
	p := int64(math.Round(max(0, min(*v, 100))))
	return &p
}

// ratio is used*100/window, rounded; nil without a window.
func ratio(used, window int64) *int64 {
	if window <= 0 || used < 0 {
		return nil
	}
	f := float64(used) * 100 / float64(window)
	return pct(&f)
}

// MaxTokens bounds a token level: anything larger is not a count.
const MaxTokens = 1 << 40

// level is a token count as stamped; nil for one that is not a count.
func level(v float64) *int64 {
	if math.IsNaN(v) || v < 0 || v > MaxTokens {
		return nil
	}
	n := int64(v)
	return &n
}

// MaxEpochMS bounds a time read from a payload (the year 5138).
const MaxEpochMS = 1e14

// whole is a non-negative JSON number below limit as an integer; 0 for
// anything else (absent, negative, not finite, absurd).
func whole(v *float64, limit float64) int64 {
	if v == nil || math.IsNaN(*v) || *v < 0 || *v >= limit {
		return 0
	}
	return int64(*v)
}

// decode is json.Unmarshal with the format named in its error.
func decode(format string, b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", format, err)
	}
	return nil
}
