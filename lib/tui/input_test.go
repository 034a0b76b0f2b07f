package tui

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func key(k Key) Event                     { return Event{Key: k} }
func keyMod(k Key, m Mod) Event           { return Event{Key: k, Mod: m} }
func runeKey(r rune) Event                { return Event{Key: KeyRune, Rune: r} }
func runeMod(r rune, m Mod) Event         { return Event{Key: KeyRune, Rune: r, Mod: m} }
func ms(a MouseAction, b, x, y int) Event { return Event{Mouse: a, Button: b, X: x, Y: y} }

func TestDecoderTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Event
	}{
		{"printable", "qj", []Event{runeKey('q'), runeKey('j')}},
		{"utf8", "é✓", []Event{runeKey('é'), runeKey('✓')}},
		{"enter cr", "\r", []Event{key(KeyEnter)}},
		{"enter lf", "\n", []Event{key(KeyEnter)}},
		{"ctrl-c is a key", "\x03", []Event{runeMod('c', ModCtrl)}},
		{"tab backspace", "\t\x7f", []Event{key(KeyTab), key(KeyBackspace)}},
		{"arrows", "\x1b[A\x1b[B\x1b[C\x1b[D", []Event{key(KeyUp), key(KeyDown), key(KeyRight), key(KeyLeft)}},
		{"ss3 arrows", "\x1bOA\x1bOB", []Event{key(KeyUp), key(KeyDown)}},
		{"home end", "\x1b[H\x1b[F\x1b[1~\x1b[4~\x1b[7~\x1b[8~", []Event{key(KeyHome), key(KeyEnd), key(KeyHome), key(KeyEnd), key(KeyHome), key(KeyEnd)}},
		{"pages", "\x1b[5~\x1b[6~", []Event{key(KeyPgUp), key(KeyPgDn)}},
		{"ctrl-up", "\x1b[1;5A", []Event{keyMod(KeyUp, ModCtrl)}},
		{"shift-tab", "\x1b[Z", []Event{keyMod(KeyTab, ModShift)}},
		{"alt-x", "\x1bx", []Event{runeMod('x', ModAlt)}},
		{"esc esc", "\x1b\x1b[A", []Event{key(KeyEsc), key(KeyUp)}},
		{"unknown csi dropped", "\x1b[200~x", []Event{runeKey('x')}},
		{"sgr press left", "\x1b[<0;10;5M", []Event{ms(MousePress, ButtonLeft, 9, 4)}},
		{"sgr release left", "\x1b[<0;10;5m", []Event{ms(MouseRelease, ButtonLeft, 9, 4)}},
		{"sgr press right", "\x1b[<2;1;1M", []Event{ms(MousePress, ButtonRight, 0, 0)}},
		{"sgr motion no button", "\x1b[<35;12;7M", []Event{ms(MouseMotion, ButtonNone, 11, 6)}},
		{"sgr drag left", "\x1b[<32;3;4M", []Event{ms(MouseMotion, ButtonLeft, 2, 3)}},
		{"sgr wheel up", "\x1b[<64;5;6M", []Event{ms(WheelUp, ButtonNone, 4, 5)}},
		{"sgr wheel down", "\x1b[<65;5;6M", []Event{ms(WheelDown, ButtonNone, 4, 5)}},
		{"sgr shift press", "\x1b[<4;2;2M", []Event{{Mouse: MousePress, Button: ButtonLeft, X: 1, Y: 1, Mod: ModShift}}},
		{"sgr alt motion", "\x1b[<43;2;2M", []Event{{Mouse: MouseMotion, Button: ButtonNone, X: 1, Y: 1, Mod: ModAlt}}},
		{"sgr ctrl wheel down", "\x1b[<81;2;2M", []Event{{Mouse: WheelDown, Button: ButtonNone, X: 1, Y: 1, Mod: ModCtrl}}},
		{"sgr large coordinates", "\x1b[<0;300;250M", []Event{ms(MousePress, ButtonLeft, 299, 249)}},
		{"sgr motion release ignored", "\x1b[<35;1;1m", nil},
		{"sgr malformed", "\x1b[<0;1M", nil},
		{"x10 press", "\x1b[M +&", []Event{ms(MousePress, ButtonLeft, 10, 5)}},
		{"keys around a report", "a\x1b[<35;2;3Mb", []Event{runeKey('a'), ms(MouseMotion, ButtonNone, 1, 2), runeKey('b')}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			got := d.Feed([]byte(tc.in))
			if d.Pending() {
				got = append(got, d.Flush()...)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// Every sequence, fed one byte at a time, decodes as it does whole, and
// nothing is emitted before it completes.
func TestDecoderSplitReads(t *testing.T) {
	for _, in := range []string{"\x1b[<35;120;40M", "\x1b[<0;3;4m", "\x1b[1;5A", "\x1b[6~", "\x1bOB", "✓", "\x1b[M +&"} {
		var whole Decoder
		want := whole.Feed([]byte(in))
		var d Decoder
		var got []Event
		for i := 0; i < len(in); i++ {
			evs := d.Feed([]byte{in[i]})
			if i < len(in)-1 && len(evs) > 0 {
				t.Errorf("%q: event %v before the sequence ended (byte %d)", in, evs, i)
			}
			got = append(got, evs...)
		}
		if d.Pending() {
			t.Errorf("%q: bytes still pending", in)
		}
		if diff := cmp.Diff(want, got); diff != "" || len(got) != 1 {
			t.Errorf("%q split: (-whole +split):\n%s", in, diff)
		}
	}
}

// A lone Esc waits for the caller's timeout (Flush); a sequence that
// completes before it is not an Esc.
func TestDecoderEscTimeout(t *testing.T) {
	var d Decoder
	if evs := d.Feed([]byte{0x1b}); len(evs) != 0 || !d.Pending() {
		t.Fatalf("lone Esc decoded at once: %v", evs)
	}
	if evs := d.Feed([]byte("[B")); len(evs) != 1 || evs[0].Key != KeyDown {
		t.Fatalf("Esc [ B: %v", evs)
	}
	d.Feed([]byte{0x1b})
	if evs := d.Flush(); len(evs) != 1 || evs[0].Key != KeyEsc || d.Pending() {
		t.Fatalf("Flush of a lone Esc: %v", evs)
	}
	// A cut-off sequence: Esc, then its bytes as typed.
	d.Feed([]byte("\x1b["))
	evs := d.Flush()
	if len(evs) != 2 || evs[0].Key != KeyEsc || evs[1].Rune != '[' {
		t.Fatalf("Flush of Esc [: %v", evs)
	}
	// An endless CSI is dropped, not held forever.
	long := "\x1b[" + string(make([]byte, 100)) + "x"
	for i := range long {
		if long[i] == 0 {
			long = long[:i] + "1" + long[i+1:]
		}
	}
	d.Feed([]byte(long))
	if d.Pending() {
		t.Errorf("an overlong sequence is still pending")
	}
}

func TestEventNames(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{runeKey('q'), "q"}, {runeMod('c', ModCtrl), "ctrl-c"}, {key(KeyEsc), "esc"}, {key(KeyEnter), "enter"},
		{keyMod(KeyUp, ModShift), "shift-up"}, {runeMod('x', ModAlt), "alt-x"}, {key(KeyPgDn), "pgdn"},
		{ms(MousePress, 0, 1, 1), ""},
	} {
		if got := tc.ev.Name(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.ev, got, tc.want)
		}
	}
}
