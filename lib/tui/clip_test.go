package tui

import (
	"strings"
	"testing"
)

func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"\x1b[31mred\x1b[0m", 3},
		{"日本", 4},
		{"✓ ok", 4},
		{"e\u0301", 1},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", 4},
		{"a\x07b", 2},
	} {
		if got := Width(tc.in); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		w    int
		want string
	}{
		{"short plain", "abc", 5, "abc"},
		{"cut plain", "abcdef", 3, "abc"},
		{"colour cut and reset", "\x1b[31mabcdef", 3, "\x1b[31mabc\x1b[0m"},
		{"colour kept across", "a\x1b[1;32mbc\x1b[0md", 3, "a\x1b[1;32mbc\x1b[0m"},
		{"attributes past the edge are not written", "ab\x1b[41m   ", 2, "ab\x1b[0m"},
		{"wide fits", "日本語", 4, "日本"},
		{"wide straddles the edge", "a日本", 4, "a日 "},
		{"tab expands", "a\tb", 10, "a       b"},
		{"tab cut", "a\tb", 4, "a   "},
		{"osc and private modes dropped", "\x1b]0;title\x07\x1b[?25lab", 5, "ab"},
		{"controls dropped", "a\x08\rb", 5, "ab"},
		{"combining kept", "e\u0301x", 1, "e\u0301"},
		{"zero width", "abc", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Clip(tc.in, tc.w)
			if got != tc.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
			}
			if w := Width(got); w > tc.w {
				t.Errorf("Clip(%q, %d) is %d wide", tc.in, tc.w, w)
			}
		})
	}
}

// Fit pads to the exact width after the reset: a background colour never
// paints the padding, and every line of a capture ends with no attribute set.
func TestFit(t *testing.T) {
	got := Fit("\x1b[44mab", 5)
	if got != "\x1b[44mab\x1b[0m   " {
		t.Errorf("Fit = %q", got)
	}
	for _, line := range []string{"", "x", "\x1b[7mlong line of reverse video text", "日本語のテキスト"} {
		f := Fit(line, 7)
		if Width(f) != 7 {
			t.Errorf("Fit(%q, 7) is %d wide: %q", line, Width(f), f)
		}
		if strings.Contains(f, "\x1b[") && !strings.Contains(f, "\x1b[0m") {
			t.Errorf("Fit(%q) leaks its attributes: %q", line, f)
		}
	}
}

func TestOverlay(t *testing.T) {
	got := Overlay("\x1b[31m⚑\x1b[0m claude", "7")
	want := "\x1b[7m\x1b[31m\x1b[7m⚑\x1b[0m\x1b[7m claude\x1b[0m"
	if got != want {
		t.Errorf("Overlay = %q, want %q", got, want)
	}
	if Strip(got) != "⚑ claude" {
		t.Errorf("Overlay changed the text: %q", Strip(got))
	}
}
