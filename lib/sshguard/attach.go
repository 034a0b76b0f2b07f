package sshguard

import (
	"fmt"
	"strings"
)

// Attach is an SSH_ORIGINAL_COMMAND that is exactly the attach the
// picker derives (lib/remote.AttachArgv): `tma [-S PATH | -L NAME] attach
// --pane %N`.
type Attach struct {
	SocketPath string // -S, "" when not given
	SocketName string // -L, "" when not given
	Pane       string
}

// MaxCommand bounds the command read: the derived attach is a socket path
// and a pane id long.
const MaxCommand = 4096

// IsAttach reports whether cmd asks for an attach at all, so that it is
// judged by ParseAttach (and refused when it is not exactly one) rather
// than answered by serve: a person who typed `ssh -t host tma attach …`
// wrong gets a reason, not a serve waiting for frames on a terminal.
func IsAttach(cmd string) bool { return strings.Contains(cmd, "attach") }

// ParseAttach reads cmd as the remote shell would, but only the part of
// the shell's language the derived attach uses: words of a plain alphabet,
// single-quoted spans and a backslash before a quote (how lib/remote's
// shellQuote puts a quote inside one), separated by spaces.
// Anything else a shell would act on (; | & $ ` " < > ( ) * ? [ ] ~ # {
// } !, a backslash before anything but ', a newline or another control
// character) is an error, and so is any word beyond the grammar.
func ParseAttach(cmd string) (Attach, error) {
	words, err := shellWords(cmd)
	if err != nil {
		return Attach{}, err
	}
	var a Attach
	// The first word names the remote's tma (the words before `serve` in
	// the remote's command, "tma" or "/opt/bin/tma"); it is never run:
	// what runs is this host's own tma-pick.
	if len(words) == 0 || (words[0] != "tma" && !strings.HasSuffix(words[0], "/tma")) {
		return a, fmt.Errorf("not `tma attach --pane %%N`: the command must start with tma")
	}
	rest := words[1:]
	if len(rest) >= 2 && (rest[0] == "-S" || rest[0] == "-L") {
		if rest[1] == "" || strings.HasPrefix(rest[1], "-") {
			return a, fmt.Errorf("%s needs a server", rest[0])
		}
		if rest[0] == "-S" {
			a.SocketPath = rest[1]
		} else {
			if strings.Contains(rest[1], "/") {
				return a, fmt.Errorf("-L takes a socket name, not a path: %q", rest[1])
			}
			a.SocketName = rest[1]
		}
		rest = rest[2:]
	}
	if len(rest) != 3 || rest[0] != "attach" || rest[1] != "--pane" {
		return a, fmt.Errorf("not `tma [-S PATH | -L NAME] attach --pane %%N`: %q", strings.Join(words, " "))
	}
	if !paneID(rest[2]) {
		return a, fmt.Errorf("invalid pane id %q (expected %%N)", rest[2])
	}
	a.Pane = rest[2]
	return a, nil
}

// paneID is tmux's %N, at most 9 digits.
func paneID(s string) bool {
	if len(s) < 2 || len(s) > 10 || s[0] != '%' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plain are the bytes a word may hold outside quotes: shellQuote's
// alphabet, none of them special to a POSIX shell.
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./%=:@+,"

func shellWords(cmd string) ([]string, error) {
	if len(cmd) > MaxCommand {
		return nil, fmt.Errorf("a command of %d bytes", len(cmd))
	}
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if c < 0x20 || c == 0x7f {
			return nil, fmt.Errorf("a control character (0x%02x) at byte %d", c, i)
		}
		if quoted {
			if c == '\'' {
				quoted = false
			} else {
				w.WriteByte(c)
			}
			continue
		}
		switch {
		case c == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\':
			if i+1 >= len(cmd) || cmd[i+1] != '\'' {
				return nil, fmt.Errorf("a backslash at byte %d not before a quote", i)
			}
			w.WriteByte('\'')
			inWord = true
			i++
		case strings.IndexByte(plain, c) >= 0:
			w.WriteByte(c)
			inWord = true
		default:
			return nil, fmt.Errorf("%q at byte %d (only plain words and single quotes are read)", c, i)
		}
	}
	if quoted {
		return nil, fmt.Errorf("an unterminated quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
