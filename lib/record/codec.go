package record

// The hand codec: what every filter decodes and encodes on each line of a
// status-line run, without encoding/json's reflection. Its contract is to be
// indistinguishable from encoding/json: a line it decodes yields the value
// json.Unmarshal would, a record it encodes yields json.Marshal's bytes.
// Anything it is not certain to treat the same way (see decoder) it refuses,
// and the caller takes the encoding/json path, which then produces the
// result and the error users have always seen.

// fastHead is how every Writer begins a record; a line that does not begin
// exactly so goes to encoding/json.
const fastHead = `{"v":1,"kind":"`

// unmarshalFast decodes a cycle, end, pane or row line. ok is false when
// the line is anything else or anything the fast path does not decode
// exactly like encoding/json.
func unmarshalFast(line []byte) (h Head, v any, ok bool) {
	if len(line) < len(fastHead) || string(line[:len(fastHead)]) != fastHead {
		return Head{}, nil, false
	}
	d := decoder{b: line, i: len(fastHead)}
	kind := d.rawKind()
	if kind == "" {
		return Head{}, nil, false
	}
	h = Head{V: Version, Kind: kind}
	switch kind {
	case KindPane:
		p := &Pane{Head: h}
		ok = d.pane(p)
		v = p
	case KindRow:
		r := &Row{Head: h}
		ok = d.row(r)
		v = r
	case KindCycle:
		c := &Cycle{Head: h}
		ok = d.cycle(c)
		v = c
	case KindEnd:
		e := &End{Head: h}
		ok = d.end(e)
		v = e
	default:
		return Head{}, nil, false
	}
	if !ok || !d.atEnd() {
		return Head{}, nil, false
	}
	return h, v, true
}

// appendFast appends the JSON of a *Cycle, *End, *Pane or *Row to dst,
// exactly as json.Marshal writes it. ok is false for any other value (and
// for a value json.Marshal would refuse: a NaN or infinite cost).
func appendFast(dst []byte, v any) (out []byte, ok bool) {
	switch r := v.(type) {
	case *Pane:
		if r == nil {
			return dst, false
		}
		return appendPane(dst, r)
	case *Row:
		if r == nil {
			return dst, false
		}
		return appendRow(dst, r)
	case *Cycle:
		if r == nil {
			return dst, false
		}
		return appendCycle(dst, r), true
	case *End:
		if r == nil {
			return dst, false
		}
		return appendEnd(dst, r), true
	}
	return dst, false
}
