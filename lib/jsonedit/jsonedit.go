package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Kind is a JSON value's type.
type Kind int

// The kinds of value.
const (
	Object Kind = iota
	Array
	String
	Number
	Bool
	Null
)

// Node is one value and its byte span [Start, End) in the source.
type Node struct {
	Kind       Kind
	Start, End int
	Members    []Member // Object
	Elems      []*Node  // Array
}

// Member is one key of an object; KeyStart..KeyEnd spans the quoted key.
type Member struct {
	Key              string
	KeyStart, KeyEnd int
	Value            *Node
}

// Get returns the value of key in an object, nil when absent (or n is not an
// object). With duplicate keys the last wins, as in encoding/json.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	var v *Node
	for _, m := range n.Members {
		if m.Key == key {
			v = m.Value
		}
	}
	return v
}

// Index returns the position of key among the members, -1 when absent.
func (n *Node) Index(key string) int {
	if n == nil || n.Kind != Object {
		return -1
	}
	idx := -1
	for i, m := range n.Members {
		if m.Key == key {
			idx = i
		}
	}
	return idx
}

// Lookup follows a path of object keys.
func (n *Node) Lookup(path ...string) *Node {
	for _, k := range path {
		n = n.Get(k)
	}
	return n
}

// Text returns the source text of the node.
func (n *Node) Text(src []byte) []byte { return src[n.Start:n.End] }

// Str returns the node's string value.
func (n *Node) Str(src []byte) (string, bool) {
	if n == nil || n.Kind != String {
		return "", false
	}
	var s string
	if json.Unmarshal(src[n.Start:n.End], &s) != nil {
		return "", false
	}
	return s, true
}

// Parse parses a whole document: one value with only whitespace (and, as
// some agents allow, // and /* */ comments) around it.
func Parse(src []byte) (*Node, error) {
	p := &parser{src: src}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(src) {
		return nil, p.errf("unexpected %q after the document", p.src[p.i])
	}
	return n, nil
}

type parser struct {
	src []byte
	i   int
}

func (p *parser) errf(format string, a ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.i, len(p.src))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, a...))
}

func (p *parser) space() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '/':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '*':
			end := bytes.Index(p.src[p.i+2:], []byte("*/"))
			if end < 0 {
				p.i = len(p.src)
				return
			}
			p.i += end + 4
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Node, error) {
	if depth > 200 {
		return nil, p.errf("nested too deeply")
	}
	if p.i >= len(p.src) {
		return nil, p.errf("unexpected end of document")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		n := &Node{Kind: Object, Start: start}
		p.i++
		p.space()
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			n.End = p.i
			return n, nil
		}
		for {
			p.space()
			if p.i >= len(p.src) || p.src[p.i] != '"' {
				return nil, p.errf("expected a key")
			}
			ks := p.i
			if err := p.str(); err != nil {
				return nil, err
			}
			ke := p.i
			var key string
			if err := json.Unmarshal(p.src[ks:ke], &key); err != nil {
				return nil, p.errf("bad key: %v", err)
			}
			p.space()
			if p.i >= len(p.src) || p.src[p.i] != ':' {
				return nil, p.errf("expected ':' after key %q", key)
			}
			p.i++
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Members = append(n.Members, Member{Key: key, KeyStart: ks, KeyEnd: ke, Value: v})
			p.space()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.src) && p.src[p.i] == '}' {
				p.i++
				n.End = p.i
				return n, nil
			}
			return nil, p.errf("expected ',' or '}' in object")
		}
	case c == '[':
		n := &Node{Kind: Array, Start: start}
		p.i++
		p.space()
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			n.End = p.i
			return n, nil
		}
		for {
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Elems = append(n.Elems, v)
			p.space()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.src) && p.src[p.i] == ']' {
				p.i++
				n.End = p.i
				return n, nil
			}
			return nil, p.errf("expected ',' or ']' in array")
		}
	case c == '"':
		if err := p.str(); err != nil {
			return nil, err
		}
		return &Node{Kind: String, Start: start, End: p.i}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		for p.i < len(p.src) && strings.IndexByte("+-.eE0123456789", p.src[p.i]) >= 0 {
			p.i++
		}
		if !json.Valid(p.src[start:p.i]) {
			return nil, p.errf("bad number %q", p.src[start:p.i])
		}
		return &Node{Kind: Number, Start: start, End: p.i}, nil
	default:
		for _, lit := range []struct {
			s string
			k Kind
		}{{"true", Bool}, {"false", Bool}, {"null", Null}} {
			if bytes.HasPrefix(p.src[p.i:], []byte(lit.s)) {
				p.i += len(lit.s)
				return &Node{Kind: lit.k, Start: start, End: p.i}, nil
			}
		}
		return nil, p.errf("unexpected %q", c)
	}
}

func (p *parser) str() error {
	p.i++ // opening quote
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '\\':
			p.i += 2
		case '"':
			p.i++
			return nil
		case '\n':
			return p.errf("newline inside a string")
		default:
			p.i++
		}
	}
	return p.errf("unterminated string")
}
