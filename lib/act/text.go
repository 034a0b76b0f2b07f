package act

import (
	"strings"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/record"
)

// MaxText is the longest text payload, in bytes.
const MaxText = 4096

// Text payload refusals (exit 4, before any tmux command runs).
const (
	ReasonEmpty        = "empty"
	ReasonTooLong      = "too-long"
	ReasonControlBytes = "control-bytes"
	ReasonSigil        = "sigil"
)

// CheckText applies the payload rules of a text action: refused when empty,
// over MaxText bytes, carrying a control character (C0, DEL, C1; a steer is
// one line) or invalid UTF-8, or beginning with one of the sigils. Leading
// spaces do not hide a sigil. It returns "" for a payload that may be typed.
func CheckText(s string, sigils []string) string {
	switch {
	case s == "":
		return ReasonEmpty
	case len(s) > MaxText:
		return ReasonTooLong
	case HasControl(s) || !utf8.ValidString(s):
		return ReasonControlBytes
	}
	lead := strings.TrimLeft(s, " ")
	for _, sg := range sigils {
		if sg != "" && (strings.HasPrefix(s, sg) || strings.HasPrefix(lead, sg)) {
			return ReasonSigil
		}
	}
	return ""
}

// HasControl reports a C0 control, DEL or a C1 control character.
func HasControl(s string) bool {
	for _, r := range s {
		if record.IsControl(r) {
			return true
		}
	}
	return false
}
