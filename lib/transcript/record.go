package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The helpers every JSONL adapter reads a record with: a record is
// decoded once into generic JSON, and each accessor answers the zero
// value for a key that is missing or of another type, so a store that
// reshapes a record degrades to fewer keys, never to an error.

type jobj = map[string]any

func decode(line []byte) (jobj, bool) {
	var m jobj
	if json.Unmarshal(line, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func str(m jobj, path ...string) string {
	v := dig(m, path...)
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return fmt.Sprint(t)
	}
	return ""
}

func num(m jobj, path ...string) (int64, bool) {
	if f, ok := dig(m, path...).(float64); ok {
		return int64(f), true
	}
	return 0, false
}

func sub(m jobj, path ...string) jobj {
	o, _ := dig(m, path...).(jobj)
	return o
}

func list(m jobj, path ...string) []any {
	l, _ := dig(m, path...).([]any)
	return l
}

func dig(m jobj, path ...string) any {
	var v any = m
	for _, k := range path {
		o, ok := v.(jobj)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// compact is v as one line of JSON (a tool's input, an unknown payload).
func compact(v any) string {
	if v == nil {
		return ""
	}
	b, err := marshalNoEscape(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// texts joins the text of a content value: a string, or a list of blocks
// carrying "text".
func texts(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, b := range t {
			if o, ok := b.(jobj); ok {
				if s, ok := o["text"].(string); ok && s != "" {
					parts = append(parts, s)
				}
			} else if s, ok := b.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// toolBody is a tool call's body: the tool's name, then its input.
func toolBody(name string, input any) string {
	in := compact(input)
	if in == "" || in == "{}" {
		return name
	}
	return name + " " + in
}

func notJSON(line []byte) []Event {
	return []Event{ev(Unknown, "", fmt.Sprintf("a record that is not a JSON object (%d bytes)", len(line)))}
}

func unknownRecord(ts, what string) Event {
	return ev(Unknown, ts, what, Field{"type", what})
}

func bookkeeping(ts, what string) Event {
	return ev(Bookkeeping, ts, what, Field{"type", what})
}

func bytesField(s string) Field { return Field{"bytes", int64(len(s))} }
