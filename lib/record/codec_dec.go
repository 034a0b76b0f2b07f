package record

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder is a JSON lexer over one line that knows the record types. Each
// method returns false, never an error: false means "not certain to match
// encoding/json", and the caller falls back to it. So it refuses, rather
// than interprets:
//   - a key that is not exactly a field's name (encoding/json would match
//     it case-insensitively, or ignore it), and a key given twice (it merges
//     a repeated map or struct into the first);
//   - a key or string that is not valid UTF-8, holds a control byte or a
//     surrogate escape that is not a pair (encoding/json substitutes U+FFFD
//     or fails);
//   - a number where a string is expected or the reverse, a fraction,
//     exponent or out-of-range value for an integer;
//   - null inside a map or array (encoding/json stores the zero value);
//   - a verdict's rules or trace (only tma-fold --explain writes them);
//   - anything after the closing brace but blanks, and anything malformed.
//
// null for a string, number, bool or struct field leaves the zero value,
// for a pointer, map or slice it is nil: what encoding/json does to a fresh
// value, and every value here is fresh because repeats are refused.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) atEnd() bool {
	d.ws()
	return d.i == len(d.b)
}

// peek returns the next non-blank byte, 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// null consumes a null if one is next.
func (d *decoder) null() bool {
	return d.peek() == 'n' && d.lit("null")
}

// rawKind reads the kind right after fastHead: lower-case letters and the
// closing quote, the only spelling the known kinds have.
func (d *decoder) rawKind() string {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= 'a' && d.b[d.i] <= 'z' {
		d.i++
	}
	if d.i == start || d.i >= len(d.b) || d.b[d.i] != '"' {
		return ""
	}
	k := d.b[start:d.i]
	d.i++
	switch string(k) {
	case KindPane:
		return KindPane
	case KindRow:
		return KindRow
	case KindCycle:
		return KindCycle
	case KindEnd:
		return KindEnd
	}
	return ""
}

// open consumes the '{' of an object.
func (d *decoder) open() bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	return true
}

// member moves to the next key of an object: it returns the key, or
// done at the closing brace. first says no member has been read yet.
func (d *decoder) member(first bool) (key []byte, done, ok bool) {
	c := d.peek()
	if c == '}' {
		d.i++
		return nil, true, true
	}
	if !first {
		if c != ',' {
			return nil, false, false
		}
		d.i++
		c = d.peek()
	}
	if c != '"' {
		return nil, false, false
	}
	d.i++
	start := d.i
	// A field name is plain ASCII; one with an escape or anything else
	// is refused (it is not one of ours, or is spelled unusually).
	for d.i < len(d.b) {
		b := d.b[d.i]
		if b == '"' {
			key = d.b[start:d.i]
			d.i++
			if d.peek() != ':' {
				return nil, false, false
			}
			d.i++
			return key, false, true
		}
		if b < 0x20 || b >= utf8.RuneSelf || b == '\\' {
			return nil, false, false
		}
		d.i++
	}
	return nil, false, false
}

// seen marks field n of an object, refusing a repeat.
func seen(mask *uint64, n uint) bool {
	if *mask&(1<<n) != 0 {
		return false
	}
	*mask |= 1 << n
	return true
}

// str reads a string (or null, leaving *dst as it is).
func (d *decoder) str(dst *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.strValue()
	*dst = s
	return ok
}

// strValue reads a string that must be there.
func (d *decoder) strValue() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	d.i++
	start := d.i
	for d.i < len(d.b) {
		b := d.b[d.i]
		switch {
		case b == '"':
			s := string(d.b[start:d.i])
			d.i++
			return s, true
		case b == '\\':
			return d.strEscaped(start)
		case b < 0x20:
			return "", false
		case b < utf8.RuneSelf:
			d.i++
		default:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			d.i += n
		}
	}
	return "", false
}

// strEscaped finishes a string from its first backslash on; start is where
// its text began.
func (d *decoder) strEscaped(start int) (string, bool) {
	// Find the closing quote first: the text unescaped is never longer
	// than escaped, so one buffer of that size holds it (a capture with
	// colours is mostly \u001b escapes, and growing by append cost twice
	// encoding/json's allocation).
	end := d.i
	for end < len(d.b) && d.b[end] != '"' {
		if d.b[end] == '\\' {
			end++
		}
		end++
	}
	out := make([]byte, 0, min(end, len(d.b))-start)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		b := d.b[d.i]
		switch {
		case b == '"':
			d.i++
			return string(out), true
		case b == '\\':
			if d.i+1 >= len(d.b) {
				return "", false
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					// Only a high half followed by a low half is a
					// character; encoding/json writes U+FFFD for the rest.
					if r >= 0xdc00 || !d.lit(`\u`) {
						return "", false
					}
					r2, ok := d.hex4()
					if !ok || r2 < 0xdc00 || r2 > 0xdfff {
						return "", false
					}
					r = utf16.DecodeRune(r, r2)
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		case b < 0x20:
			return "", false
		case b < utf8.RuneSelf:
			// Copy the run up to the next byte that needs a look.
			j := d.i + 1
			for j < len(d.b) {
				c := d.b[j]
				if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
					break
				}
				j++
			}
			out = append(out, d.b[d.i:j]...)
			d.i = j
		default:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out = append(out, d.b[d.i:d.i+n]...)
			d.i += n
		}
	}
	return "", false
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// int64Value reads an integer that must be there: JSON's grammar (no plus,
// no leading zero) with no fraction or exponent, within int64.
func (d *decoder) int64Value() (int64, bool) {
	d.ws()
	neg := false
	if d.i < len(d.b) && d.b[d.i] == '-' {
		neg = true
		d.i++
	}
	start := d.i
	var u uint64
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c < '0' || c > '9' {
			break
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		d.i++
	}
	n := d.i - start
	if n == 0 || (n > 1 && d.b[start] == '0') {
		return 0, false
	}
	if d.i < len(d.b) {
		if c := d.b[d.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

func (d *decoder) int64(dst *int64) bool {
	if d.null() {
		return true
	}
	n, ok := d.int64Value()
	*dst = n
	return ok
}

func (d *decoder) int(dst *int) bool {
	if d.null() {
		return true
	}
	n, ok := d.int64Value()
	if int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return ok
}

func (d *decoder) bool(dst *bool) bool {
	switch d.peek() {
	case 't':
		*dst = true
		return d.lit("true")
	case 'f':
		return d.lit("false")
	case 'n':
		return d.lit("null")
	}
	return false
}

func (d *decoder) strPtr(dst **string) bool {
	if d.null() {
		return true
	}
	s, ok := d.strValue()
	*dst = &s
	return ok
}

func (d *decoder) int64Ptr(dst **int64) bool {
	if d.null() {
		return true
	}
	n, ok := d.int64Value()
	*dst = &n
	return ok
}

func (d *decoder) boolPtr(dst **bool) bool {
	if d.null() {
		return true
	}
	b := new(bool)
	*dst = b
	return d.bool(b)
}

// float64Ptr reads a number as encoding/json does for a float64: checked
// against JSON's grammar, then strconv.ParseFloat; out of range is refused.
func (d *decoder) float64Ptr(dst **float64) bool {
	if d.null() {
		return true
	}
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	intStart := d.i
	digits := func() int {
		s := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		return d.i - s
	}
	n := digits()
	if n == 0 || (n > 1 && d.b[intStart] == '0') {
		return false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return false
		}
	}
	f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		return false
	}
	*dst = &f
	return true
}

// strings reads an array of strings; null is nil, [] is empty, not nil.
func (d *decoder) strings(dst *[]string) bool {
	if d.null() {
		return true
	}
	if d.peek() != '[' {
		return false
	}
	d.i++
	out := []string{}
	if d.peek() == ']' {
		d.i++
		*dst = out
		return true
	}
	for {
		s, ok := d.strValue()
		if !ok {
			return false
		}
		out = append(out, s)
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			*dst = out
			return true
		default:
			return false
		}
	}
}

// mapKey reads one key of a map (any string) and its colon.
func (d *decoder) mapKey(first bool) (key string, done, ok bool) {
	c := d.peek()
	if c == '}' {
		d.i++
		return "", true, true
	}
	if !first {
		if c != ',' {
			return "", false, false
		}
		d.i++
	}
	key, ok = d.strValue()
	if !ok || d.peek() != ':' {
		return "", false, false
	}
	d.i++
	return key, false, true
}

func (d *decoder) strMap(dst *map[string]string) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	m := map[string]string{}
	for first := true; ; first = false {
		k, done, ok := d.mapKey(first)
		if !ok {
			return false
		}
		if done {
			*dst = m
			return true
		}
		v, ok := d.strValue()
		if !ok {
			return false
		}
		m[k] = v
	}
}

func (d *decoder) int64Map(dst *map[string]int64) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	m := map[string]int64{}
	for first := true; ; first = false {
		k, done, ok := d.mapKey(first)
		if !ok {
			return false
		}
		if done {
			*dst = m
			return true
		}
		v, ok := d.int64Value()
		if !ok {
			return false
		}
		m[k] = v
	}
}

// Head fields, marked seen before a record's own keys: a second "v" or
// "kind" is a repeat.
const headSeen = 1<<0 | 1<<1

func (d *decoder) end(e *End) bool {
	mask := uint64(headSeen)
	for {
		k, done, ok := d.member(false)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "now_ms":
			n, ok = 2, d.int64(&e.NowMS)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) cycle(c *Cycle) bool {
	mask := uint64(headSeen)
	for {
		k, done, ok := d.member(false)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "now_ms":
			n, ok = 2, d.int64(&c.NowMS)
		case "server":
			n, ok = 3, d.str(&c.Server)
		case "host":
			n, ok = 4, d.str(&c.Host)
		case "tmux_version":
			n, ok = 5, d.str(&c.TmuxVersion)
		case "clients":
			n, ok = 6, d.clients(&c.Clients)
		case "scoped":
			n, ok = 7, d.bool(&c.Scoped)
		case "last_poll_ms":
			n, ok = 8, d.int64(&c.LastPollMS)
		case "last_status_ms":
			n, ok = 9, d.int64(&c.LastStatusMS)
		case "panes":
			n, ok = 10, d.strings(&c.Panes)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) clients(dst *[]Client) bool {
	if d.null() {
		return true
	}
	if d.peek() != '[' {
		return false
	}
	d.i++
	out := []Client{}
	if d.peek() == ']' {
		d.i++
		*dst = out
		return true
	}
	for {
		var c Client
		if !d.client(&c) {
			return false
		}
		out = append(out, c)
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			*dst = out
			return true
		default:
			return false
		}
	}
}

func (d *decoder) client(c *Client) bool {
	if !d.open() {
		return false
	}
	var mask uint64
	for first := true; ; first = false {
		k, done, ok := d.member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "name":
			n, ok = 0, d.str(&c.Name)
		case "pane":
			n, ok = 1, d.str(&c.Pane)
		case "session":
			n, ok = 2, d.str(&c.Session)
		case "activity":
			n, ok = 3, d.int64(&c.Activity)
		case "control":
			n, ok = 4, d.bool(&c.Control)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) pane(p *Pane) bool {
	mask := uint64(headSeen)
	for {
		k, done, ok := d.member(false)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "now_ms":
			n, ok = 2, d.int64(&p.NowMS)
		case "pane":
			n, ok = 3, d.str(&p.Pane)
		case "session":
			n, ok = 4, d.str(&p.Session)
		case "session_id":
			n, ok = 5, d.str(&p.SessionID)
		case "window":
			n, ok = 6, d.int(&p.Window)
		case "window_id":
			n, ok = 7, d.str(&p.WindowID)
		case "index":
			n, ok = 8, d.int(&p.Index)
		case "pane_pid":
			n, ok = 9, d.int(&p.PanePID)
		case "command":
			n, ok = 10, d.str(&p.Command)
		case "title":
			n, ok = 11, d.str(&p.Title)
		case "cwd":
			n, ok = 12, d.str(&p.CWD)
		case "width":
			n, ok = 13, d.int(&p.Width)
		case "height":
			n, ok = 14, d.int(&p.Height)
		case "alternate_on":
			n, ok = 15, d.bool(&p.AlternateOn)
		case "in_mode":
			n, ok = 16, d.bool(&p.InMode)
		case "scroll":
			n, ok = 17, d.int(&p.Scroll)
		case "window_activity":
			n, ok = 18, d.int64(&p.WindowActivity)
		case "active":
			n, ok = 19, d.bool(&p.Active)
		case "dead":
			n, ok = 20, d.bool(&p.Dead)
		case "opts":
			n, ok = 21, d.strMap(&p.Opts)
		case "window_summary":
			n, ok = 22, d.str(&p.WindowSummary)
		case "session_summary":
			n, ok = 23, d.str(&p.SessionSummary)
		case "class":
			n, ok = 24, d.str(&p.Class)
		case "agent":
			n, ok = 25, d.str(&p.Agent)
		case "identity":
			n, ok = 26, d.str(&p.Identity)
		case "agent_pid":
			n, ok = 27, d.int(&p.AgentPID)
		case "agent_alive":
			n, ok = 28, d.bool(&p.AgentAlive)
		case "foreground_is_agent":
			n, ok = 29, d.bool(&p.ForegroundIsAgent)
		case "procs":
			n, ok = 30, d.int(&p.Procs)
		case "shell_only":
			n, ok = 31, d.bool(&p.ShellOnly)
		case "viewer_activity":
			n, ok = 32, d.int64(&p.ViewerActivity)
		case "capture":
			n, ok = 33, d.capture(&p.Capture)
		case "capture_skipped":
			n, ok = 34, d.str(&p.CaptureSkipped)
		case "notes":
			n, ok = 35, d.strings(&p.Notes)
		case "quiet_edge_ms":
			n, ok = 36, d.int64(&p.QuietEdge)
		case "verdict":
			n, ok = 37, d.verdict(&p.Verdict)
		case "manifest":
			n, ok = 38, d.str(&p.Manifest)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) capture(dst **Capture) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	c := new(Capture)
	*dst = c
	var mask uint64
	for first := true; ; first = false {
		k, done, ok := d.member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "at_ms":
			n, ok = 0, d.int64(&c.AtMS)
		case "text":
			n, ok = 1, d.str(&c.Text)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) verdict(dst **Verdict) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	v := new(Verdict)
	*dst = v
	var mask uint64
	for first := true; ; first = false {
		k, done, ok := d.member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "state":
			n, ok = 0, d.str(&v.State)
		case "detail":
			n, ok = 1, d.str(&v.Detail)
		case "action":
			n, ok = 2, d.str(&v.Action)
		case "source":
			n, ok = 3, d.str(&v.Source)
		case "evidence_at":
			n, ok = 4, d.int64(&v.EvidenceAt)
		case "since":
			n, ok = 5, d.int64(&v.Since)
		case "episode_reset":
			n, ok = 6, d.bool(&v.EpisodeReset)
		case "set_attention":
			n, ok = 7, d.bool(&v.SetAttention)
		case "clear_attention":
			n, ok = 8, d.bool(&v.ClearAttn)
		case "may_override":
			n, ok = 9, d.bool(&v.MayOverride)
		case "refresh":
			n, ok = 10, d.bool(&v.Refresh)
		case "history_view":
			n, ok = 11, d.bool(&v.HistoryView)
		case "guard_at":
			n, ok = 12, d.int64(&v.GuardAt)
		case "anchors":
			n, ok = 13, d.int64Map(&v.Anchors)
		case "winning_evidence":
			n, ok = 14, d.evidence(&v.Winning)
		default:
			// rules and trace among them: only --explain writes those.
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) evidence(e *Evidence) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	var mask uint64
	for first := true; ; first = false {
		k, done, ok := d.member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "source":
			n, ok = 0, d.str(&e.Source)
		case "at":
			n, ok = 1, d.int64(&e.At)
		case "label":
			n, ok = 2, d.str(&e.Label)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) row(r *Row) bool {
	mask := uint64(headSeen)
	for {
		k, done, ok := d.member(false)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "now_ms":
			n, ok = 2, d.int64(&r.NowMS)
		case "row":
			n, ok = 3, d.agentRow(&r.Row)
		case "tmux_session":
			n, ok = 4, d.str(&r.TmuxSession)
		case "window":
			n, ok = 5, d.int(&r.Window)
		case "index":
			n, ok = 6, d.int(&r.Index)
		case "cwd":
			n, ok = 7, d.str(&r.CWD)
		case "active":
			n, ok = 8, d.bool(&r.Active)
		case "source":
			n, ok = 9, d.str(&r.Source)
		case "done_cleared":
			n, ok = 10, d.bool(&r.DoneCleared)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) agentRow(a *AgentRow) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	var mask uint64
	for first := true; ; first = false {
		k, done, ok := d.member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "pane":
			n, ok = 0, d.str(&a.Pane)
		case "agent":
			n, ok = 1, d.str(&a.Agent)
		case "state":
			n, ok = 2, d.str(&a.State)
		case "detail":
			n, ok = 3, d.strPtr(&a.Detail)
		case "since":
			n, ok = 4, d.int64Ptr(&a.Since)
		case "since_ms":
			n, ok = 5, d.int64Ptr(&a.SinceMS)
		case "episode_ms":
			n, ok = 6, d.int64Ptr(&a.EpisodeMS)
		case "locator":
			n, ok = 7, d.str(&a.Locator)
		case "title":
			n, ok = 8, d.str(&a.Title)
		case "attention":
			n, ok = 9, d.bool(&a.Attention)
		case "done":
			n, ok = 10, d.bool(&a.Done)
		case "session":
			n, ok = 11, d.strPtr(&a.Session)
		case "transcript":
			n, ok = 12, d.strPtr(&a.Transcript)
		case "permission_request":
			n, ok = 13, d.strPtr(&a.PermissionRequest)
		case "stamped_at_ms":
			n, ok = 14, d.int64Ptr(&a.StampedAtMS)
		case "context":
			n, ok = 15, d.int64Ptr(&a.Context)
		case "context_at_ms":
			n, ok = 16, d.int64Ptr(&a.ContextAtMS)
		case "muted":
			n, ok = 17, d.bool(&a.Muted)
		case "tokens":
			n, ok = 18, d.int64Ptr(&a.Tokens)
		case "quota":
			n, ok = 19, d.quota(&a.Quota)
		case "cost_usd":
			n, ok = 20, d.float64Ptr(&a.CostUSD)
		case "repo":
			n, ok = 21, d.strPtr(&a.Repo)
		case "branch":
			n, ok = 22, d.strPtr(&a.Branch)
		case "worktree":
			n, ok = 23, d.boolPtr(&a.Worktree)
		case "pending_tool":
			n, ok = 24, d.strPtr(&a.PendingTool)
		case "pending_call":
			n, ok = 25, d.strPtr(&a.PendingCall)
		case "pending_summary":
			n, ok = 26, d.strPtr(&a.PendingSummary)
		case "server":
			n, ok = 27, d.str(&a.Server)
		case "host":
			n, ok = 28, d.str(&a.Host)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}

func (d *decoder) quota(dst **Quota) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	q := new(Quota)
	*dst = q
	var mask uint64
	for first := true; ; first = false {
		k, done, ok := d.member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var n uint
		switch string(k) {
		case "pct":
			n, ok = 0, d.int64(&q.Pct)
		case "window":
			n, ok = 1, d.str(&q.Window)
		case "resets_at_ms":
			n, ok = 2, d.int64Ptr(&q.ResetsAt)
		case "at_ms":
			n, ok = 3, d.int64Ptr(&q.AtMS)
		default:
			return false
		}
		if !ok || !seen(&mask, n) {
			return false
		}
	}
}
