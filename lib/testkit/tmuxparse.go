package testkit

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TmuxCommands splits one line of a tmux command file into its commands
// and their words, the way tmux's parser reads the subset tma writes:
// blanks separate words, a ';' word (or a word's trailing unquoted ';')
// ends a command, single quotes hold everything literally up to the next
// quote, and outside quotes a backslash makes the next byte literal. It
// refuses what tma never means to leave to the parser: an unterminated
// quote, double quotes, and an unquoted '$', '~', '{', '}', '#' or '%' at
// the start of a word (environment expansion, home expansion, command
// blocks, comments, directives), and bytes that are not UTF-8 (tmux reads
// 0xff as the end of the file and 0xfe as a word break, quoted or not), so
// a fuzzed value that escaped its quotes shows up as an error or as a
// wrong word.
func TmuxCommands(line string) ([][]string, error) {
	if !utf8.ValidString(line) {
		return nil, fmt.Errorf("not UTF-8: %q", line)
	}
	var cmds [][]string
	var cmd []string
	var word strings.Builder
	inWord := false
	end := func() {
		if inWord {
			cmd = append(cmd, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		end()
		if len(cmd) > 0 {
			cmds = append(cmds, cmd)
		}
		cmd = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\n':
			endCmd()
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated single quote at byte %d", i)
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("trailing backslash")
			}
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == ';' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' || line[i+1] == '\n'):
			endCmd()
		case c == '"':
			return nil, fmt.Errorf("double quote at byte %d", i)
		case c == '$' || c == '{' || c == '}':
			return nil, fmt.Errorf("unquoted %q at byte %d", c, i)
		case !inWord && (c == '~' || c == '#' || c == '%' && len(cmd) == 0):
			return nil, fmt.Errorf("unquoted %q starts a word at byte %d", c, i)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds, nil
}

// FormatText expands a tmux format that should hold no directive at all:
// "##" is one '#', except "##[", which tmux keeps as it is so the style
// parser after it draws the "#[" as text; any other '#' (which would start
// #{…}, #(…), #[…] or another expansion) is an error naming it.
func FormatText(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '#' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '#' {
			if i+2 < len(f) && f[i+2] == '[' {
				b.WriteString("##[")
				i += 2
				continue
			}
			b.WriteByte('#')
			i++
			continue
		}
		end := min(i+2, len(f))
		return "", fmt.Errorf("live format directive %q at byte %d", f[i:end], i)
	}
	return b.String(), nil
}
