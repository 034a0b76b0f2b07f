package record

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The encoder writes json.Marshal's bytes: the struct's key order,
// omitempty as the tags say, map keys sorted, and strings escaped the way
// encoding/json's default (HTML-safe) encoder escapes them.

// plain says which ASCII bytes a string carries as they are: everything
// printable but the quote, the backslash and the three HTML specials.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

const hexDigits = "0123456789abcdef"

func appendStr(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but not valid JavaScript: encoding/json escapes them.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

func appendStrPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendStr(dst, *s)
}

func appendInt64Ptr(dst []byte, n *int64) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, *n, 10)
}

func appendBoolPtr(dst []byte, b *bool) []byte {
	if b == nil {
		return append(dst, "null"...)
	}
	return appendBool(dst, *b)
}

// appendFloat64Ptr writes a float as encoding/json does (ES6 number
// formatting: %f between 1e-6 and 1e21, else an exponent without padding);
// ok is false for NaN and the infinities, which json.Marshal refuses.
func appendFloat64Ptr(dst []byte, f *float64) ([]byte, bool) {
	if f == nil {
		return append(dst, "null"...), true
	}
	v := *f
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return dst, false
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, v, format, -1, 64)
	if format == 'e' {
		// e-07 -> e-7
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

func appendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStr(dst, s)
	}
	return append(dst, ']')
}

// sortedKeys returns a map's keys in encoding/json's order (bytewise).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendStrMap(dst []byte, m map[string]string) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStr(dst, k)
		dst = append(dst, ':')
		dst = appendStr(dst, m[k])
	}
	return append(dst, '}')
}

func appendInt64Map(dst []byte, m map[string]int64) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStr(dst, k)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, m[k], 10)
	}
	return append(dst, '}')
}

func appendHead(dst []byte, h Head) []byte {
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, int64(h.V), 10)
	dst = append(dst, `,"kind":`...)
	return appendStr(dst, h.Kind)
}

func appendEnd(dst []byte, e *End) []byte {
	dst = appendHead(dst, e.Head)
	dst = append(dst, `,"now_ms":`...)
	dst = strconv.AppendInt(dst, e.NowMS, 10)
	return append(dst, '}')
}

func appendCycle(dst []byte, c *Cycle) []byte {
	dst = appendHead(dst, c.Head)
	dst = append(dst, `,"now_ms":`...)
	dst = strconv.AppendInt(dst, c.NowMS, 10)
	dst = append(dst, `,"server":`...)
	dst = appendStr(dst, c.Server)
	dst = append(dst, `,"host":`...)
	dst = appendStr(dst, c.Host)
	dst = append(dst, `,"tmux_version":`...)
	dst = appendStr(dst, c.TmuxVersion)
	dst = append(dst, `,"clients":`...)
	if c.Clients == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range c.Clients {
			if i > 0 {
				dst = append(dst, ',')
			}
			cl := &c.Clients[i]
			dst = append(dst, `{"name":`...)
			dst = appendStr(dst, cl.Name)
			dst = append(dst, `,"pane":`...)
			dst = appendStr(dst, cl.Pane)
			dst = append(dst, `,"session":`...)
			dst = appendStr(dst, cl.Session)
			dst = append(dst, `,"activity":`...)
			dst = strconv.AppendInt(dst, cl.Activity, 10)
			if cl.Control {
				dst = append(dst, `,"control":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c.Scoped {
		dst = append(dst, `,"scoped":true`...)
	}
	dst = append(dst, `,"last_poll_ms":`...)
	dst = strconv.AppendInt(dst, c.LastPollMS, 10)
	if c.LastStatusMS != 0 {
		dst = append(dst, `,"last_status_ms":`...)
		dst = strconv.AppendInt(dst, c.LastStatusMS, 10)
	}
	if len(c.Panes) != 0 {
		dst = append(dst, `,"panes":`...)
		dst = appendStrings(dst, c.Panes)
	}
	return append(dst, '}')
}

func appendPane(dst []byte, p *Pane) ([]byte, bool) {
	dst = appendHead(dst, p.Head)
	dst = append(dst, `,"now_ms":`...)
	dst = strconv.AppendInt(dst, p.NowMS, 10)
	dst = append(dst, `,"pane":`...)
	dst = appendStr(dst, p.Pane)
	dst = append(dst, `,"session":`...)
	dst = appendStr(dst, p.Session)
	dst = append(dst, `,"session_id":`...)
	dst = appendStr(dst, p.SessionID)
	dst = append(dst, `,"window":`...)
	dst = strconv.AppendInt(dst, int64(p.Window), 10)
	dst = append(dst, `,"window_id":`...)
	dst = appendStr(dst, p.WindowID)
	dst = append(dst, `,"index":`...)
	dst = strconv.AppendInt(dst, int64(p.Index), 10)
	dst = append(dst, `,"pane_pid":`...)
	dst = strconv.AppendInt(dst, int64(p.PanePID), 10)
	dst = append(dst, `,"command":`...)
	dst = appendStr(dst, p.Command)
	dst = append(dst, `,"title":`...)
	dst = appendStr(dst, p.Title)
	dst = append(dst, `,"cwd":`...)
	dst = appendStr(dst, p.CWD)
	dst = append(dst, `,"width":`...)
	dst = strconv.AppendInt(dst, int64(p.Width), 10)
	dst = append(dst, `,"height":`...)
	dst = strconv.AppendInt(dst, int64(p.Height), 10)
	dst = append(dst, `,"alternate_on":`...)
	dst = appendBool(dst, p.AlternateOn)
	dst = append(dst, `,"in_mode":`...)
	dst = appendBool(dst, p.InMode)
	dst = append(dst, `,"scroll":`...)
	dst = strconv.AppendInt(dst, int64(p.Scroll), 10)
	dst = append(dst, `,"window_activity":`...)
	dst = strconv.AppendInt(dst, p.WindowActivity, 10)
	dst = append(dst, `,"active":`...)
	dst = appendBool(dst, p.Active)
	dst = append(dst, `,"dead":`...)
	dst = appendBool(dst, p.Dead)
	dst = append(dst, `,"opts":`...)
	dst = appendStrMap(dst, p.Opts)
	dst = append(dst, `,"window_summary":`...)
	dst = appendStr(dst, p.WindowSummary)
	dst = append(dst, `,"session_summary":`...)
	dst = appendStr(dst, p.SessionSummary)
	dst = append(dst, `,"class":`...)
	dst = appendStr(dst, p.Class)
	dst = append(dst, `,"agent":`...)
	dst = appendStr(dst, p.Agent)
	dst = append(dst, `,"identity":`...)
	dst = appendStr(dst, p.Identity)
	dst = append(dst, `,"agent_pid":`...)
	dst = strconv.AppendInt(dst, int64(p.AgentPID), 10)
	dst = append(dst, `,"agent_alive":`...)
	dst = appendBool(dst, p.AgentAlive)
	dst = append(dst, `,"foreground_is_agent":`...)
	dst = appendBool(dst, p.ForegroundIsAgent)
	dst = append(dst, `,"procs":`...)
	dst = strconv.AppendInt(dst, int64(p.Procs), 10)
	dst = append(dst, `,"shell_only":`...)
	dst = appendBool(dst, p.ShellOnly)
	dst = append(dst, `,"viewer_activity":`...)
	dst = strconv.AppendInt(dst, p.ViewerActivity, 10)
	dst = append(dst, `,"capture":`...)
	if p.Capture == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"at_ms":`...)
		dst = strconv.AppendInt(dst, p.Capture.AtMS, 10)
		dst = append(dst, `,"text":`...)
		dst = appendStr(dst, p.Capture.Text)
		dst = append(dst, '}')
	}
	if p.CaptureSkipped != "" {
		dst = append(dst, `,"capture_skipped":`...)
		dst = appendStr(dst, p.CaptureSkipped)
	}
	if len(p.Notes) != 0 {
		dst = append(dst, `,"notes":`...)
		dst = appendStrings(dst, p.Notes)
	}
	if p.QuietEdge != 0 {
		dst = append(dst, `,"quiet_edge_ms":`...)
		dst = strconv.AppendInt(dst, p.QuietEdge, 10)
	}
	if p.Manifest != "" {
		dst = append(dst, `,"manifest":`...)
		dst = appendStr(dst, p.Manifest)
	}
	if p.Verdict != nil {
		dst = append(dst, `,"verdict":`...)
		dst = appendVerdict(dst, p.Verdict)
	}
	return append(dst, '}'), true
}

func appendVerdict(dst []byte, v *Verdict) []byte {
	dst = append(dst, `{"state":`...)
	dst = appendStr(dst, v.State)
	dst = append(dst, `,"detail":`...)
	dst = appendStr(dst, v.Detail)
	dst = append(dst, `,"action":`...)
	dst = appendStr(dst, v.Action)
	dst = append(dst, `,"source":`...)
	dst = appendStr(dst, v.Source)
	dst = append(dst, `,"evidence_at":`...)
	dst = strconv.AppendInt(dst, v.EvidenceAt, 10)
	dst = append(dst, `,"since":`...)
	dst = strconv.AppendInt(dst, v.Since, 10)
	dst = append(dst, `,"episode_reset":`...)
	dst = appendBool(dst, v.EpisodeReset)
	dst = append(dst, `,"set_attention":`...)
	dst = appendBool(dst, v.SetAttention)
	dst = append(dst, `,"clear_attention":`...)
	dst = appendBool(dst, v.ClearAttn)
	dst = append(dst, `,"may_override":`...)
	dst = appendBool(dst, v.MayOverride)
	dst = append(dst, `,"refresh":`...)
	dst = appendBool(dst, v.Refresh)
	if v.HistoryView {
		dst = append(dst, `,"history_view":true`...)
	}
	dst = append(dst, `,"guard_at":`...)
	dst = strconv.AppendInt(dst, v.GuardAt, 10)
	if len(v.Anchors) != 0 {
		dst = append(dst, `,"anchors":`...)
		dst = appendInt64Map(dst, v.Anchors)
	}
	dst = append(dst, `,"winning_evidence":{"source":`...)
	dst = appendStr(dst, v.Winning.Source)
	dst = append(dst, `,"at":`...)
	dst = strconv.AppendInt(dst, v.Winning.At, 10)
	dst = append(dst, `,"label":`...)
	dst = appendStr(dst, v.Winning.Label)
	dst = append(dst, '}')
	if len(v.Rules) != 0 {
		dst = append(dst, `,"rules":[`...)
		for i := range v.Rules {
			if i > 0 {
				dst = append(dst, ',')
			}
			r := &v.Rules[i]
			dst = append(dst, `{"index":`...)
			dst = strconv.AppendInt(dst, int64(r.Index), 10)
			dst = append(dst, `,"state":`...)
			dst = appendStr(dst, r.State)
			dst = append(dst, `,"detail":`...)
			dst = appendStr(dst, r.Detail)
			dst = append(dst, `,"priority":`...)
			dst = strconv.AppendInt(dst, int64(r.Priority), 10)
			dst = append(dst, `,"region":`...)
			dst = appendStr(dst, r.Region)
			dst = append(dst, `,"label":`...)
			dst = appendStr(dst, r.Label)
			dst = append(dst, `,"matched":`...)
			dst = appendBool(dst, r.Matched)
			if r.Excerpt != "" {
				dst = append(dst, `,"excerpt":`...)
				dst = appendStr(dst, r.Excerpt)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if len(v.Trace) != 0 {
		dst = append(dst, `,"trace":`...)
		dst = appendStrings(dst, v.Trace)
	}
	return append(dst, '}')
}

func appendRow(dst []byte, r *Row) ([]byte, bool) {
	dst = appendHead(dst, r.Head)
	dst = append(dst, `,"now_ms":`...)
	dst = strconv.AppendInt(dst, r.NowMS, 10)
	dst = append(dst, `,"row":`...)
	dst, ok := appendAgentRow(dst, &r.Row)
	if !ok {
		return dst, false
	}
	dst = append(dst, `,"tmux_session":`...)
	dst = appendStr(dst, r.TmuxSession)
	dst = append(dst, `,"window":`...)
	dst = strconv.AppendInt(dst, int64(r.Window), 10)
	dst = append(dst, `,"index":`...)
	dst = strconv.AppendInt(dst, int64(r.Index), 10)
	dst = append(dst, `,"cwd":`...)
	dst = appendStr(dst, r.CWD)
	dst = append(dst, `,"active":`...)
	dst = appendBool(dst, r.Active)
	if r.Source != "" {
		dst = append(dst, `,"source":`...)
		dst = appendStr(dst, r.Source)
	}
	if r.DoneCleared {
		dst = append(dst, `,"done_cleared":true`...)
	}
	return append(dst, '}'), true
}

func appendAgentRow(dst []byte, a *AgentRow) ([]byte, bool) {
	dst = append(dst, `{"pane":`...)
	dst = appendStr(dst, a.Pane)
	dst = append(dst, `,"agent":`...)
	dst = appendStr(dst, a.Agent)
	dst = append(dst, `,"state":`...)
	dst = appendStr(dst, a.State)
	dst = append(dst, `,"detail":`...)
	dst = appendStrPtr(dst, a.Detail)
	dst = append(dst, `,"since":`...)
	dst = appendInt64Ptr(dst, a.Since)
	dst = append(dst, `,"since_ms":`...)
	dst = appendInt64Ptr(dst, a.SinceMS)
	dst = append(dst, `,"episode_ms":`...)
	dst = appendInt64Ptr(dst, a.EpisodeMS)
	dst = append(dst, `,"locator":`...)
	dst = appendStr(dst, a.Locator)
	dst = append(dst, `,"title":`...)
	dst = appendStr(dst, a.Title)
	dst = append(dst, `,"attention":`...)
	dst = appendBool(dst, a.Attention)
	dst = append(dst, `,"done":`...)
	dst = appendBool(dst, a.Done)
	dst = append(dst, `,"session":`...)
	dst = appendStrPtr(dst, a.Session)
	dst = append(dst, `,"transcript":`...)
	dst = appendStrPtr(dst, a.Transcript)
	dst = append(dst, `,"permission_request":`...)
	dst = appendStrPtr(dst, a.PermissionRequest)
	dst = append(dst, `,"stamped_at_ms":`...)
	dst = appendInt64Ptr(dst, a.StampedAtMS)
	dst = append(dst, `,"context":`...)
	dst = appendInt64Ptr(dst, a.Context)
	dst = append(dst, `,"context_at_ms":`...)
	dst = appendInt64Ptr(dst, a.ContextAtMS)
	dst = append(dst, `,"muted":`...)
	dst = appendBool(dst, a.Muted)
	dst = append(dst, `,"tokens":`...)
	dst = appendInt64Ptr(dst, a.Tokens)
	dst = append(dst, `,"quota":`...)
	if a.Quota == nil {
		dst = append(dst, "null"...)
	} else {
		q := a.Quota
		dst = append(dst, `{"pct":`...)
		dst = strconv.AppendInt(dst, q.Pct, 10)
		dst = append(dst, `,"window":`...)
		dst = appendStr(dst, q.Window)
		dst = append(dst, `,"resets_at_ms":`...)
		dst = appendInt64Ptr(dst, q.ResetsAt)
		dst = append(dst, `,"at_ms":`...)
		dst = appendInt64Ptr(dst, q.AtMS)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"cost_usd":`...)
	dst, ok := appendFloat64Ptr(dst, a.CostUSD)
	if !ok {
		return dst, false
	}
	dst = append(dst, `,"repo":`...)
	dst = appendStrPtr(dst, a.Repo)
	dst = append(dst, `,"branch":`...)
	dst = appendStrPtr(dst, a.Branch)
	dst = append(dst, `,"worktree":`...)
	dst = appendBoolPtr(dst, a.Worktree)
	dst = append(dst, `,"pending_tool":`...)
	dst = appendStrPtr(dst, a.PendingTool)
	dst = append(dst, `,"pending_call":`...)
	dst = appendStrPtr(dst, a.PendingCall)
	dst = append(dst, `,"pending_summary":`...)
	dst = appendStrPtr(dst, a.PendingSummary)
	dst = append(dst, `,"server":`...)
	dst = appendStr(dst, a.Server)
	dst = append(dst, `,"host":`...)
	dst = appendStr(dst, a.Host)
	return append(dst, '}'), true
}
