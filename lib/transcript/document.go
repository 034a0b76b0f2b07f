package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The refusal codes (the manual's closed set).
const (
	CodeNoTranscript     = "no-transcript"
	CodeUnsupportedStore = "unsupported-store"
	CodeStoreIncomplete  = "store-incomplete"
	CodeCursorInvalid    = "cursor-invalid"
	CodeRecordTooLarge   = "record-too-large"
	CodeIOError          = "io-error"
)

// Refusal is a typed "there is nothing to show you, and here is why".
type Refusal struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (r *Refusal) Error() string { return r.Code + ": " + r.Message }

func refuse(code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Session is the envelope's session object. Empty strings are null.
type Session struct {
	Agent     string
	SessionID string
	CWD       string
	Version   string
	Model     string
}

// MarshalJSON keeps the manual's key order and writes unknowns as null.
func (s Session) MarshalJSON() ([]byte, error) {
	return ordered([]Field{{"agent", nullable(Clip(s.Agent))}, {"session_id", nullable(Clip(s.SessionID))},
		{"cwd", nullable(Clip(s.CWD))}, {"version", nullable(Clip(s.Version))}, {"model", nullable(Clip(s.Model))}})
}

// fill sets the fields s lacks from o: the newest record a page reads
// wins over the head's.
func (s *Session) fill(o Session) {
	for _, p := range []struct {
		dst *string
		v   string
	}{
		{&s.SessionID, o.SessionID}, {&s.CWD, o.CWD}, {&s.Version, o.Version}, {&s.Model, o.Model},
	} {
		if *p.dst == "" {
			*p.dst = p.v
		}
	}
}

func (s *Session) complete() bool {
	return s.SessionID != "" && s.CWD != "" && s.Version != "" && s.Model != ""
}

// Page is one served window, newest event first. Older is the cursor to
// pass back as --before, "" when the head of the store is in this page.
type Page struct {
	Path            string
	Session         Session
	Older           string
	BudgetTruncated bool
	Unknown         int
	Events          []Event
	ReadBytes       int64 // what the call read from disk (for tests and the benchmark)
}

// Document is what --json prints for a page (or, with Single, for
// --event's one event).
type Document struct {
	Pane   string
	Agent  string
	Page   *Page
	Single bool
}

// MarshalJSON writes the schema-1 envelope in the manual's key order.
func (d Document) MarshalJSON() ([]byte, error) {
	p := d.Page
	f := []Field{{"schema", 1}, {"pane", d.Pane}, {"agent", d.Agent}, {"path", p.Path},
		{"session", p.Session}, {"older", nullable(p.Older)}, {"budget_truncated", p.BudgetTruncated},
		{"unknown", p.Unknown}}
	if d.Single {
		var one any
		if len(p.Events) > 0 {
			one = p.Events[0]
		}
		f = append(f, Field{"event", one})
	} else {
		evs := p.Events
		if evs == nil {
			evs = []Event{}
		}
		f = append(f, Field{"events", evs})
	}
	return ordered(f)
}

// RefusalDocument is the refusal's own document, so a --json consumer
// parses one shape either way.
func RefusalDocument(pane string, r *Refusal) ([]byte, error) {
	return ordered([]Field{{"schema", 1}, {"pane", pane}, {"refusal", r}})
}

func ordered(fields []Field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(f.Key)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshalNoEscape(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
