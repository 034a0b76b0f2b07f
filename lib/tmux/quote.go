package tmux

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidPaneID reports whether s is a tmux pane id (%N).
func ValidPaneID(s string) bool {
	if len(s) < 2 || s[0] != '%' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// CheckValue refuses a value tma would write that carries control bytes:
// one stray newline would end the command line and break every later pane.
// It refuses bytes that are not UTF-8 too: tmux's parser reads a 0xff as
// the end of the file (the rest of a batch is silently dropped) and a 0xfe
// as a word break, even inside single quotes.
func CheckValue(v string) error {
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("value %q carries a control byte", v)
		}
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("value %q is not UTF-8", v)
	}
	return nil
}

// Quote single-quotes s for tmux's command parser, which reads no escapes
// inside single quotes: a quote closes, is escaped outside, and reopens.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Literal makes s safe where tmux expands formats: every # becomes ##, so a
// pane title or payload carrying #{…} is written as text, never evaluated.
func Literal(s string) string { return strings.ReplaceAll(s, "#", "##") }

// DisplayText makes s print as itself through display-message, which
// expands formats and then strftime: # and % are both doubled.
func DisplayText(s string) string { return strings.ReplaceAll(Literal(s), "%", "%%") }
