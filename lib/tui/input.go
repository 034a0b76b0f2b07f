package tui

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Key names a key that is not a printable rune.
type Key int

// The keys the decoder names. KeyRune carries Event.Rune (ctrl-letters are
// KeyRune with ModCtrl and the lowercase letter).
const (
	KeyNone Key = iota
	KeyRune
	KeyEnter
	KeyEsc
	KeyTab
	KeyBackspace
	KeyUp
	KeyDown
	KeyRight
	KeyLeft
	KeyHome
	KeyEnd
	KeyPgUp
	KeyPgDn
	KeyInsert
	KeyDelete
)

var keyNames = map[Key]string{
	KeyEnter: "enter", KeyEsc: "esc", KeyTab: "tab", KeyBackspace: "backspace",
	KeyUp: "up", KeyDown: "down", KeyRight: "right", KeyLeft: "left",
	KeyHome: "home", KeyEnd: "end", KeyPgUp: "pgup", KeyPgDn: "pgdn",
	KeyInsert: "insert", KeyDelete: "delete",
}

// Mod is a set of modifiers.
type Mod int

// Modifiers, as xterm and SGR mouse reports encode them.
const (
	ModShift Mod = 1 << iota
	ModAlt
	ModCtrl
)

// MouseAction is what a mouse report says happened.
type MouseAction int

// Mouse actions. Motion is any-motion (1003) tracking: the pointer moved,
// with or without a button held.
const (
	MousePress MouseAction = iota + 1
	MouseRelease
	MouseMotion
	WheelUp
	WheelDown
	WheelLeft
	WheelRight
)

// Mouse buttons in a press or release.
const (
	ButtonLeft   = 0
	ButtonMiddle = 1
	ButtonRight  = 2
	ButtonNone   = 3
)

// Event is one key or one mouse report.
type Event struct {
	Key  Key  // KeyNone for a mouse event
	Rune rune // with KeyRune
	Mod  Mod

	Mouse  MouseAction // 0 for a key
	Button int         // with MousePress, MouseRelease and MouseMotion (ButtonNone: no button held)
	X, Y   int         // 0-based cell of a mouse event
}

// IsMouse reports whether e is a mouse report.
func (e Event) IsMouse() bool { return e.Mouse != 0 }

// Name is a key's name as the bindings read it: "q", "enter", "esc",
// "ctrl-c", "alt-x", "shift-up", "pgdn". Mouse events have none.
func (e Event) Name() string {
	if e.IsMouse() || e.Key == KeyNone {
		return ""
	}
	var b strings.Builder
	if e.Mod&ModCtrl != 0 {
		b.WriteString("ctrl-")
	}
	if e.Mod&ModAlt != 0 {
		b.WriteString("alt-")
	}
	if e.Mod&ModShift != 0 {
		b.WriteString("shift-")
	}
	if e.Key == KeyRune {
		b.WriteRune(e.Rune)
	} else {
		b.WriteString(keyNames[e.Key])
	}
	return b.String()
}

// maxSeq bounds an escape sequence: a longer one is not a sequence we know,
// and its bytes are dropped rather than held forever.
const maxSeq = 64

// Decoder turns terminal input into events. Bytes arrive in arbitrary
// pieces; an incomplete sequence stays pending until more bytes complete
// it or the caller decides it has waited long enough (Flush): a lone Esc is
// the Esc key only once nothing follows it.
type Decoder struct {
	buf []byte
}

// Pending reports whether bytes are held waiting for the rest of a
// sequence (the caller arms its Esc timeout while this is true).
func (d *Decoder) Pending() bool { return len(d.buf) > 0 }

// Feed adds bytes and returns every event they complete.
func (d *Decoder) Feed(p []byte) []Event {
	d.buf = append(d.buf, p...)
	return d.decode(false)
}

// Flush gives up waiting: the pending bytes are read as they stand (a lone
// Esc is the Esc key; a cut-off sequence is Esc followed by its bytes).
func (d *Decoder) Flush() []Event { return d.decode(true) }

func (d *Decoder) decode(final bool) []Event {
	var out []Event
	for len(d.buf) > 0 {
		ev, n := parse(d.buf, final)
		if n == 0 {
			break // incomplete: wait for more
		}
		d.buf = d.buf[n:]
		if ev != nil {
			out = append(out, *ev)
		}
	}
	if len(d.buf) == 0 {
		d.buf = nil
	}
	return out
}

// parse reads one event from the front of b. n == 0 means b holds the
// start of a sequence that needs more bytes; ev == nil with n > 0 means
// the bytes were consumed and mean nothing to us.
func parse(b []byte, final bool) (ev *Event, n int) {
	c := b[0]
	switch {
	case c == 0x1b:
		return parseEsc(b, final)
	case c == '\r' || c == '\n':
		return &Event{Key: KeyEnter}, 1
	case c == '\t':
		return &Event{Key: KeyTab}, 1
	case c == 0x7f || c == 0x08:
		return &Event{Key: KeyBackspace}, 1
	case c == 0:
		return &Event{Key: KeyRune, Rune: ' ', Mod: ModCtrl}, 1
	case c < 0x20:
		return &Event{Key: KeyRune, Rune: rune('a' + c - 1), Mod: ModCtrl}, 1
	case c < 0x80:
		return &Event{Key: KeyRune, Rune: rune(c)}, 1
	}
	if !utf8.FullRune(b) && !final {
		return nil, 0
	}
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError {
		return nil, size // a stray byte
	}
	return &Event{Key: KeyRune, Rune: r}, size
}

func parseEsc(b []byte, final bool) (*Event, int) {
	if len(b) == 1 {
		if final {
			return &Event{Key: KeyEsc}, 1
		}
		return nil, 0
	}
	switch b[1] {
	case '[':
		ev, n := parseCSI(b)
		if n == 0 && final {
			return &Event{Key: KeyEsc}, 1 // cut off: Esc, then the rest as typed
		}
		return ev, n
	case 'O':
		if len(b) < 3 {
			if final {
				return &Event{Key: KeyEsc}, 1
			}
			return nil, 0
		}
		if k, ok := ss3Keys[b[2]]; ok {
			return &Event{Key: k}, 3
		}
		return nil, 3
	case 0x1b:
		// Esc Esc: the first is a key on its own.
		return &Event{Key: KeyEsc}, 1
	}
	// Esc followed by a key is that key with alt.
	ev, n := parse(b[1:], final)
	if n == 0 {
		return nil, 0
	}
	if ev == nil {
		return nil, 1 + n
	}
	ev.Mod |= ModAlt
	return ev, 1 + n
}

var ss3Keys = map[byte]Key{'A': KeyUp, 'B': KeyDown, 'C': KeyRight, 'D': KeyLeft, 'H': KeyHome, 'F': KeyEnd}

var csiFinal = map[byte]Key{'A': KeyUp, 'B': KeyDown, 'C': KeyRight, 'D': KeyLeft, 'H': KeyHome, 'F': KeyEnd, 'Z': KeyTab}

var csiTilde = map[int]Key{1: KeyHome, 2: KeyInsert, 3: KeyDelete, 4: KeyEnd, 5: KeyPgUp, 6: KeyPgDn, 7: KeyHome, 8: KeyEnd}

// parseCSI reads ESC [ params final. b starts with ESC [.
func parseCSI(b []byte) (*Event, int) {
	if len(b) >= 3 && b[2] == 'M' {
		return parseX10(b) // legacy mouse: ESC [ M Cb Cx Cy
	}
	i := 2
	for ; i < len(b); i++ {
		if c := b[i]; c >= 0x40 && c <= 0x7e {
			break
		}
		if i >= maxSeq {
			return nil, i // not a sequence we know: drop it
		}
	}
	if i == len(b) {
		return nil, 0
	}
	params, final, n := string(b[2:i]), b[i], i+1
	if strings.HasPrefix(params, "<") && (final == 'M' || final == 'm') {
		return parseSGRMouse(params[1:], final == 'M'), n
	}
	f := strings.Split(params, ";")
	mod := Mod(0)
	if len(f) == 2 {
		if m, err := strconv.Atoi(f[1]); err == nil && m > 1 {
			mod = Mod(m - 1) // xterm: 1 + shift(1) + alt(2) + ctrl(4)
		}
	}
	if final == '~' {
		num, err := strconv.Atoi(f[0])
		if k, ok := csiTilde[num]; ok && err == nil {
			return &Event{Key: k, Mod: mod}, n
		}
		return nil, n
	}
	if k, ok := csiFinal[final]; ok {
		if final == 'Z' {
			mod |= ModShift // back-tab
		}
		return &Event{Key: k, Mod: mod}, n
	}
	return nil, n
}

// parseSGRMouse reads the body of ESC [ < b ; x ; y (M|m).
func parseSGRMouse(body string, down bool) *Event {
	f := strings.Split(body, ";")
	if len(f) != 3 {
		return nil
	}
	cb, e1 := strconv.Atoi(f[0])
	x, e2 := strconv.Atoi(f[1])
	y, e3 := strconv.Atoi(f[2])
	if e1 != nil || e2 != nil || e3 != nil || x < 1 || y < 1 {
		return nil
	}
	ev := mouse(cb, x-1, y-1)
	if ev.Mouse == MousePress && !down {
		ev.Mouse = MouseRelease
	}
	if !down && ev.Mouse != MouseRelease {
		return nil // a release of a wheel or a motion means nothing
	}
	return &ev
}

// mouse decodes the button byte shared by SGR and X10 reports.
func mouse(cb, x, y int) Event {
	ev := Event{X: x, Y: y, Button: cb & 3}
	if cb&4 != 0 {
		ev.Mod |= ModShift
	}
	if cb&8 != 0 {
		ev.Mod |= ModAlt
	}
	if cb&16 != 0 {
		ev.Mod |= ModCtrl
	}
	switch {
	case cb&64 != 0 && cb&128 == 0:
		ev.Mouse = [4]MouseAction{WheelUp, WheelDown, WheelLeft, WheelRight}[cb&3]
		ev.Button = ButtonNone
	case cb&32 != 0:
		ev.Mouse = MouseMotion
	default:
		ev.Mouse = MousePress
		if cb&128 != 0 {
			ev.Button = 8 + cb&3 // extra buttons: never a left click
		}
	}
	return ev
}

// parseX10 reads the legacy ESC [ M Cb Cx Cy report (each byte offset by 32).
func parseX10(b []byte) (*Event, int) {
	if len(b) < 6 {
		return nil, 0
	}
	cb, x, y := int(b[3])-32, int(b[4])-33, int(b[5])-33
	if cb < 0 || x < 0 || y < 0 {
		return nil, 6
	}
	ev := mouse(cb, x, y)
	if ev.Mouse == MousePress && cb&3 == 3 {
		ev.Mouse = MouseRelease // X10 cannot say which button went up
	}
	return &ev, 6
}
