package tomledit

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Statement is one top-level key/value statement: Start..End covers its
// whole lines, End just past its last newline (or the end of the document).
type Statement struct {
	Key        string
	Start, End int
}

// Scan returns the top-level statements (those before the first table
// header) and the offset of the first header line (len(src) when none).
func Scan(src []byte) (stmts []Statement, header int) {
	i := 0
	for i < len(src) {
		lineEnd := nextLine(src, i)
		t := bytes.TrimLeft(src[i:lineEnd], " \t")
		switch {
		case len(bytes.TrimSpace(t)) == 0 || t[0] == '#':
			i = lineEnd
		case t[0] == '[':
			return stmts, i
		default:
			end := statementEnd(src, i)
			stmts = append(stmts, Statement{Key: keyOf(t), Start: i, End: end})
			i = end
		}
	}
	return stmts, len(src)
}

// Find returns the top-level statement for key.
func Find(src []byte, key string) (Statement, bool) {
	stmts, _ := Scan(src)
	for _, s := range stmts {
		if s.Key == key {
			return s, true
		}
	}
	return Statement{}, false
}

// Insert adds line as a new top-level statement after the last one (at the
// top of the document when there is none), so it sits before every table.
// The line ends as the document's lines do (Eol).
func Insert(src []byte, line string) []byte {
	stmts, _ := Scan(src)
	at := 0
	if len(stmts) > 0 {
		at = stmts[len(stmts)-1].End
	}
	eol := Eol(src)
	if at == len(src) && at > 0 && src[at-1] != '\n' {
		return splice(src, at, at, eol+line)
	}
	return splice(src, at, at, line+eol)
}

// Eol is the document's line ending: "\r\n" when its first line ends so,
// else "\n".
func Eol(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// Replace swaps a statement for line, keeping its trailing newline (CRLF
// or LF).
func Replace(src []byte, s Statement, line string) []byte {
	end := s.End
	if end > s.Start && src[end-1] == '\n' {
		end--
		if end > s.Start && src[end-1] == '\r' {
			end--
		}
	}
	return splice(src, s.Start, end, line)
}

// Delete removes a statement's lines; one at the very end of a document
// with no final newline takes the line break before it too (CRLF or LF),
// undoing Insert.
func Delete(src []byte, s Statement) []byte {
	if s.End == len(src) && (s.End == s.Start || src[s.End-1] != '\n') && s.Start > 0 && src[s.Start-1] == '\n' {
		from := s.Start - 1
		if from > 0 && src[from-1] == '\r' {
			from--
		}
		return splice(src, from, s.End, "")
	}
	return splice(src, s.Start, s.End, "")
}

// Array renders a TOML array of basic strings.
func Array(items []string) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = Quote(it)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Quote renders s as a TOML basic string.
func Quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimRight(b.String(), "\n")
}

func splice(src []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(src)+len(s))
	out = append(out, src[:from]...)
	out = append(out, s...)
	return append(out, src[to:]...)
}

func nextLine(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

// keyOf reads the key of a statement line: a bare, quoted or dotted key, as
// written (quotes removed from a single quoted key).
func keyOf(t []byte) string {
	s := string(t)
	eq := -1
	inq := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inq != 0:
			if c == inq {
				inq = 0
			} else if c == '\\' && inq == '"' {
				i++
			}
		case c == '"' || c == '\'':
			inq = c
		case c == '=':
			eq = i
		}
		if eq >= 0 {
			break
		}
	}
	if eq < 0 {
		return strings.TrimSpace(s)
	}
	k := strings.TrimSpace(s[:eq])
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] && !strings.ContainsAny(k[1:len(k)-1], `"'.`) {
		k = k[1 : len(k)-1]
	}
	return k
}

// statementEnd follows a statement from start across multi-line strings,
// arrays and inline tables to the end of its last line.
func statementEnd(src []byte, start int) int {
	depth := 0
	i := start
	seenEq := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			if depth <= 0 {
				return i + 1
			}
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = skipString(src, i)
		case !seenEq && c == '=':
			seenEq = true
			i++
		case seenEq && (c == '[' || c == '{'):
			depth++
			i++
		case seenEq && (c == ']' || c == '}'):
			depth--
			i++
		default:
			i++
		}
	}
	return len(src)
}

// skipString returns the offset just past the string opening at i.
func skipString(src []byte, i int) int {
	q := src[i]
	triple := bytes.HasPrefix(src[i:], []byte{q, q, q})
	if triple {
		end := bytes.Index(src[i+3:], []byte{q, q, q})
		if end < 0 {
			return len(src)
		}
		j := i + 3 + end + 3
		for j < len(src) && src[j] == q { // up to two quotes may close the content
			j++
		}
		return j
	}
	j := i + 1
	for j < len(src) && src[j] != '\n' {
		if src[j] == '\\' && q == '"' {
			j += 2
			continue
		}
		if src[j] == q {
			return j + 1
		}
		j++
	}
	return j
}
