package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/tmaproject/tma/lib/record"
)

// cond measures cells as tmux does with a C locale's wcwidth: East Asian
// wide and emoji presentation characters take two cells, ambiguous ones one.
var cond = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// RuneWidth is the number of cells r takes (0 for combining marks).
func RuneWidth(r rune) int {
	if record.IsControl(r) {
		return 0
	}
	return cond.RuneWidth(r)
}

// Width is the number of cells s takes on a terminal, escape sequences and
// control characters excluded.
func Width(s string) int {
	w := 0
	scan(s, func(r rune, _ string) bool {
		w += RuneWidth(r)
		return true
	}, nil)
	return w
}

// scan walks s: text runes go to text (a tab as '\t'), SGR sequences to
// sgr (nil drops them); every other escape sequence is skipped. text
// returning false stops the walk.
func scan(s string, text func(r rune, raw string) bool, sgr func(seq string)) {
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			n, isSGR := escLen(s[i:])
			if isSGR && sgr != nil {
				sgr(s[i : i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !text(r, s[i:i+size]) {
			return
		}
		i += size
	}
}

// escLen is the length of the escape sequence at the start of s (which
// begins with ESC), and whether it is an SGR (ESC [ … m).
func escLen(s string) (int, bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1, c == 'm' && !strings.ContainsAny(s[2:i], "<=>?")
			}
		}
		return len(s), false
	case ']', 'P', '_', '^':
		// OSC, DCS, APC, PM: up to BEL or ST (ESC \).
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1, false
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2, false
			}
		}
		return len(s), false
	case '(', ')', '*', '+', '#', '%':
		return min(3, len(s)), false
	}
	return 2, false
}

// Clip cuts s to at most w cells. SGR sequences are kept (other escape
// sequences and control characters are dropped), a wide character that
// would straddle the edge becomes a space, tabs expand to the next multiple
// of 8, and when s set any attribute the result ends with a reset, so no
// colour leaks past the edge.
func Clip(s string, w int) string {
	out, _ := clip(s, w)
	return out
}

// Fit is Clip padded with spaces to exactly w cells (the padding after the
// reset, in the terminal's default colours).
func Fit(s string, w int) string {
	out, used := clip(s, w)
	if used < w {
		out += strings.Repeat(" ", w-used)
	}
	return out
}

func clip(s string, w int) (string, int) {
	var b strings.Builder
	used, styled := 0, false
	pendingSGR := ""
	flush := func() {
		if pendingSGR != "" {
			b.WriteString(pendingSGR)
			pendingSGR = ""
		}
	}
	scan(s, func(r rune, raw string) bool {
		if r == '\t' {
			n := 8 - used%8
			if used+n > w {
				n = w - used
			}
			flush()
			b.WriteString(strings.Repeat(" ", n))
			used += n
			return used < w
		}
		if record.IsControl(r) || r == utf8.RuneError && raw != "\uFFFD" {
			return true
		}
		rw := RuneWidth(r)
		if rw == 0 {
			if used > 0 && used <= w {
				flush()
				b.WriteString(raw) // a combining mark stays on its base
			}
			return true
		}
		if used+rw > w {
			if used < w {
				flush()
				b.WriteString(strings.Repeat(" ", w-used))
				used = w
			}
			return false
		}
		flush()
		b.WriteString(raw)
		used += rw
		return true
	}, func(seq string) {
		// Held until text follows, so attributes set at the very end
		// (past the edge) are never written.
		pendingSGR += seq
		styled = true
	})
	if styled {
		b.WriteString("\x1b[0m")
	}
	return b.String(), used
}

// Overlay draws s with one more attribute (sgr, e.g. "7" reverse or "4"
// underline) that survives the resets inside s: the attribute is set at
// the start and again after every SGR sequence in s.
func Overlay(s, sgr string) string {
	if sgr == "" {
		return s
	}
	on := "\x1b[" + sgr + "m"
	var b strings.Builder
	b.WriteString(on)
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			n, isSGR := escLen(s[i:])
			b.WriteString(s[i : i+n])
			if isSGR {
				b.WriteString(on)
			}
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	b.WriteString("\x1b[0m")
	return b.String()
}

// Strip removes every escape sequence and control character from s.
func Strip(s string) string {
	var b strings.Builder
	scan(s, func(r rune, raw string) bool {
		if !record.IsControl(r) || r == '\t' {
			b.WriteString(raw)
		}
		return true
	}, nil)
	return b.String()
}
