package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/record"
)

// Payload is what tma reads from an event's JSON; everything is optional.
type Payload struct {
	Raw        string
	Session    string // session_id, sessionId, thread-id, thread_id
	Transcript string
	SubagentID string // set on events fired inside a subagent
	Tool       string
	Call       string // an identifier for the pending call, never its text
	Summary    string // the command line or path the call would act on
	// AtMS is when the event happened, if the caller says (tma's OpenCode
	// and pi plugins stamp tma_at_ms): hooks spawned without waiting can
	// reach tmux out of order, and the claim guard orders them by this.
	AtMS int64
	// The OpenCode API lane: the pending permission's or question's own id
	// (properties.id of permission.asked / question.asked, as tma's plugin
	// forwards them) and the server the plugin says is listening
	// (tma_api_endpoint, loopback only).
	PermissionID, QuestionID string
	APIEndpoint              string
}

// ParsePayload reads the fields tma uses. A payload that is not a JSON object
// is kept raw (matchers still see it) and yields no fields.
func ParsePayload(raw string) Payload {
	p := Payload{Raw: raw}
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil {
		return p
	}
	p.Session = first(m, "session_id", "sessionId", "sessionID", "thread-id", "thread_id")
	p.Transcript = first(m, "transcript_path", "transcriptPath")
	p.SubagentID = first(m, "agent_id", "subagent_id")
	p.Tool = first(m, "tool_name", "toolName", "tool")
	if in, ok := m["tool_input"].(map[string]any); ok {
		p.Summary = first(in, "command", "file_path", "path", "url", "pattern", "query", "description")
		if id := first(m, "tool_use_id", "toolUseId", "call_id", "callID"); id != "" {
			p.Call = id
		} else if b, err := json.Marshal(in); err == nil {
			sum := sha256.Sum256(append([]byte(p.Tool+"\x00"), b...))
			p.Call = hex.EncodeToString(sum[:6])
		}
	} else if id := first(m, "tool_use_id", "toolUseId", "call_id", "callID"); id != "" {
		p.Call = id
	}
	if v, ok := m["tma_at_ms"].(float64); ok && v > 0 {
		p.AtMS = int64(v)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		switch id := sessionID(first(props, "id")); first(m, "source") {
		case "permission.asked", "permission.updated":
			p.PermissionID = id
		case "question.asked":
			p.QuestionID = id
		}
	}
	p.APIEndpoint = LoopbackURL(first(m, "tma_api_endpoint"))
	p.Session = sessionID(p.Session)
	p.Transcript = Clean(p.Transcript, 1024)
	p.SubagentID = Clean(p.SubagentID, 200)
	p.Tool = Clean(p.Tool, 120)
	p.Call = Clean(p.Call, 120)
	p.Summary = Clean(p.Summary, 120)
	return p
}

// sessionID keeps an id that is safe inside a tmux format (it is compared
// server-side in guards); anything else is treated as no id at all.
func sessionID(s string) string {
	if len(s) > 200 {
		return ""
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':'
		if !ok {
			return ""
		}
	}
	return s
}

func first(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// Clean makes agent-supplied text safe to store: control bytes become
// spaces, and it is cut to at most max bytes on a rune boundary.
func Clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if record.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// LoopbackURL keeps a plugin-stamped server address only when it is an
// http URL on this host's loopback with a port: tma act POSTs answers to
// it, so a payload must not be able to point that anywhere else.
func LoopbackURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Port() == "" || u.RawQuery != "" || u.Fragment != "" || len(s) > 200 {
		return ""
	}
	if h := u.Hostname(); h != "localhost" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return ""
		}
	}
	return strings.TrimRight(s, "/")
}
