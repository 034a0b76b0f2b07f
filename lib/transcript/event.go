package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The event kinds, the manual's whole vocabulary. Bookkeeping is a record
// an adapter knows and deliberately does not draw; Unknown is one no
// adapter claimed.
const (
	SessionMeta       = "session_meta"
	UserMessage       = "user_message"
	AssistantText     = "assistant_text"
	Thinking          = "thinking"
	ToolCall          = "tool_call"
	ToolResult        = "tool_result"
	PermissionRequest = "permission_request"
	TurnBoundary      = "turn_boundary"
	Usage             = "usage"
	SubagentRef       = "subagent_ref"
	Compaction        = "compaction"
	Attachment        = "attachment"
	Bookkeeping       = "bookkeeping"
	Unknown           = "unknown"
)

// Kinds lists every kind, in the manual's order.
var Kinds = []string{SessionMeta, UserMessage, AssistantText, Thinking, ToolCall, ToolResult,
	PermissionRequest, TurnBoundary, Usage, SubagentRef, Compaction, Attachment, Bookkeeping, Unknown}

// Field is one kind-defined key of an event header, kept in the order the
// adapter gave it so the JSON is stable.
type Field struct {
	Key   string
	Value any // string, int64, bool or nil
}

// Event is one normalized event. An adapter fills Kind, TS, Body and
// Fields; the pager sets Cursor and derives Preview.
type Event struct {
	Cursor  string
	Kind    string
	TS      string
	Preview string
	Fields  []Field
	Body    string
	NoBody  bool // --headers: body is null
}

// ev builds an event whose body is text.
func ev(kind, ts, body string, fields ...Field) Event {
	return Event{Kind: kind, TS: ts, Body: body, Fields: fields}
}

// MaxString is the per-string budget: every string of a header (the
// preview, ts, and each kind key) is cut to this many bytes, on a rune
// boundary.
const MaxString = 256

// Clip cuts s to MaxString bytes without splitting a rune.
func Clip(s string) string {
	if len(s) <= MaxString {
		return s
	}
	cut := MaxString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// firstLine is the body's first non-empty line, whitespace-trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// finish derives the preview and applies the string budget to the header.
func (e *Event) finish() {
	e.Preview = Clip(firstLine(e.Body))
	e.TS = Clip(e.TS)
	for i, f := range e.Fields {
		if s, ok := f.Value.(string); ok {
			e.Fields[i].Value = Clip(s)
		}
	}
}

// MarshalJSON writes the header keys in the manual's order: cursor, kind,
// ts, preview, the kind's own keys, body.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	put := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshalNoEscape(v)
		if err != nil {
			vb = []byte("null")
		}
		b.Write(vb)
	}
	put("cursor", e.Cursor)
	put("kind", e.Kind)
	put("ts", nullable(e.TS))
	put("preview", e.Preview)
	for _, f := range e.Fields {
		put(f.Key, f.Value)
	}
	if e.NoBody {
		put("body", nil)
	} else {
		put("body", e.Body)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// headerSize is what the event's header costs against the 32 KiB budget:
// its JSON with the body null.
func (e Event) headerSize() int {
	h := e
	h.NoBody = true
	b, _ := h.MarshalJSON()
	return len(b)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// marshalNoEscape is json.Marshal without HTML escaping: a preview is
// read by people and scripts, not embedded in a page.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
