package screen

import "strings"

const esc = 0x1b

// StripANSI removes terminal escape sequences from s and keeps its text: CSI sequences
// (colours, cursor moves), OSC strings terminated by BEL or ST, the DCS/SOS/PM/APC strings
// terminated by ST, and the short two- and three-byte ESC sequences. A string sequence that
// is never terminated ends at the next newline, so one stray byte cannot swallow a capture.
func StripANSI(s string) string {
	i := strings.IndexByte(s, esc)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		if s[i] != esc {
			j := strings.IndexByte(s[i:], esc)
			if j < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		i = skipEscape(s, i)
	}
	return b.String()
}

// skipEscape returns the index just past the escape sequence that starts at s[i] (an ESC).
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	intro := s[i+1]
	j := i + 2
	switch intro {
	case '[': // CSI: parameter bytes, intermediate bytes, one final byte
		for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
			j++
		}
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			j++
		}
		return j
	case ']', 'P', 'X', '^', '_': // string sequences: OSC, DCS, SOS, PM, APC
		for j < len(s) {
			switch s[j] {
			case 0x07:
				if intro == ']' {
					return j + 1
				}
			case '\n':
				return j
			case esc:
				if j+1 < len(s) && s[j+1] == '\\' {
					return j + 2
				}
				return j // a new sequence starts: the string was cut short
			}
			j++
		}
		return j
	default: // nF / Fp / Fe / Fs: intermediates, then one final byte
		j = i + 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j
	}
}
