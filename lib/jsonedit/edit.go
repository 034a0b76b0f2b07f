package jsonedit

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Each edit below returns a new document; the node arguments must come from
// parsing src itself. Re-parse after every edit.

// InsertMember adds key: raw as the object's last member, laid out like the
// object's existing members (or, in an empty object, like the document).
func InsertMember(src []byte, obj *Node, key string, raw []byte) []byte {
	k, _ := json.Marshal(key)
	if len(obj.Members) == 0 {
		return fillEmpty(src, obj, func(indent, colon string, pretty bool) string {
			return string(k) + colon + render(src, raw, indent, pretty)
		})
	}
	sep, indent, pretty := layout(src, obj)
	colon := colonOf(src, obj.Members[0], pretty)
	at := obj.Members[len(obj.Members)-1].Value.End
	return splice(src, at, at, ","+sep+string(k)+colon+render(src, raw, indent, pretty))
}

// AppendElem adds raw as the array's last element.
func AppendElem(src []byte, arr *Node, raw []byte) []byte {
	if len(arr.Elems) == 0 {
		return fillEmpty(src, arr, func(indent, _ string, pretty bool) string {
			return render(src, raw, indent, pretty)
		})
	}
	sep, indent, pretty := layout(src, arr)
	at := arr.Elems[len(arr.Elems)-1].End
	return splice(src, at, at, ","+sep+render(src, raw, indent, pretty))
}

// ReplaceValue replaces one value, laid out at the indentation of its line.
func ReplaceValue(src []byte, n *Node, raw []byte) []byte {
	return splice(src, n.Start, n.End, render(src, raw, lineIndent(src, n.Start), isPretty(src)))
}

// ReplaceText replaces one value's bytes with text exactly as given (no
// layout): what puts back bytes an edit took.
func ReplaceText(src []byte, n *Node, text string) []byte {
	return splice(src, n.Start, n.End, text)
}

// Eol is the document's line ending: "\r\n" when its first line ends so,
// else "\n". Every line an edit adds ends the same way, so a CRLF file
// stays CRLF.
func Eol(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// DeleteMember removes the object's i-th member together with the separator
// an InsertMember would have added, so an insert followed by a delete gives
// back the original bytes.
func DeleteMember(src []byte, obj *Node, i int) []byte {
	starts := make([]int, len(obj.Members))
	ends := make([]int, len(obj.Members))
	for j, m := range obj.Members {
		starts[j], ends[j] = m.KeyStart, m.Value.End
	}
	return deleteItem(src, obj, starts, ends, i)
}

// DeleteElem removes the array's i-th element (see DeleteMember).
func DeleteElem(src []byte, arr *Node, i int) []byte {
	starts := make([]int, len(arr.Elems))
	ends := make([]int, len(arr.Elems))
	for j, e := range arr.Elems {
		starts[j], ends[j] = e.Start, e.End
	}
	return deleteItem(src, arr, starts, ends, i)
}

func deleteItem(src []byte, n *Node, starts, ends []int, i int) []byte {
	switch {
	case len(starts) == 1:
		return splice(src, n.Start+1, n.End-1, "")
	case i > 0:
		return splice(src, ends[i-1], ends[i], "")
	default:
		return splice(src, starts[0], starts[1], "")
	}
}

func splice(src []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(s))
	out = append(out, src[:from]...)
	out = append(out, s...)
	return append(out, src[to:]...)
}

// fillEmpty writes the first item into an empty container. A pretty document
// puts it on its own line one step in; a one-line document keeps one line.
func fillEmpty(src []byte, n *Node, item func(indent, colon string, pretty bool) string) []byte {
	pretty := isPretty(src)
	if !pretty {
		return splice(src, n.Start+1, n.End-1, item("", ":", false))
	}
	outer := lineIndent(src, n.Start)
	inner := outer + Unit(src)
	eol := Eol(src)
	return splice(src, n.Start+1, n.End-1, eol+inner+item(inner, ": ", true)+eol+outer)
}

// layout reads how a non-empty container separates its items.
func layout(src []byte, n *Node) (sep, indent string, pretty bool) {
	first := firstStart(n)
	between := string(src[n.Start+1 : first])
	if strings.Contains(between, "\n") {
		indent = lineIndent(src, first)
		return Eol(src) + indent, indent, true
	}
	if strings.TrimSpace(between) == "" {
		return between, "", false
	}
	return " ", "", false
}

func firstStart(n *Node) int {
	if n.Kind == Object {
		return n.Members[0].KeyStart
	}
	return n.Elems[0].Start
}

func colonOf(src []byte, m Member, pretty bool) string {
	c := string(src[m.KeyEnd:m.Value.Start])
	if strings.TrimSpace(c) == ":" && !strings.Contains(c, "\n") {
		return c
	}
	if pretty {
		return ": "
	}
	return ":"
}

// render lays raw out for a value whose line is indented by indent.
func render(src, raw []byte, indent string, pretty bool) string {
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return string(raw)
	}
	if !pretty {
		return c.String()
	}
	var b bytes.Buffer
	_ = json.Indent(&b, c.Bytes(), indent, Unit(src))
	// json.Indent breaks lines with \n alone; a string value holds no raw
	// newline, so every \n is a line break.
	if eol := Eol(src); eol != "\n" {
		return strings.ReplaceAll(b.String(), "\n", eol)
	}
	return b.String()
}

// isPretty is false for a non-empty document written on one line.
func isPretty(src []byte) bool {
	t := bytes.TrimSpace(src)
	if len(t) <= 2 {
		return true
	}
	return bytes.Contains(t, []byte("\n"))
}

// Unit is the document's indentation step: the indentation of its first
// indented line, two spaces when nothing is indented.
func Unit(src []byte) string {
	for _, line := range bytes.Split(src, []byte("\n")) {
		j := 0
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j > 0 && j < len(line) && line[j] != '\r' {
			return string(line[:j])
		}
	}
	return "  "
}

func lineIndent(src []byte, pos int) string {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	j := ls
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[ls:j])
}
