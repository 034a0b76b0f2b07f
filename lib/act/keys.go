package act

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Step is one delivery step of a key sequence: either key names sent in one
// send-keys call, or one literal text item typed with send-keys -l.
type Step struct {
	Literal string   // typed literally; the next step waits until it shows
	Keys    []string // tmux key names, one send-keys call
}

// Steps splits a manifest key sequence: runs of key names go out together
// in one send-keys call; an item that is not a key name is typed literally
// on its own, and the keys after it wait until it shows on the screen.
// Agents drop an Enter that lands right behind typed text (docs/actions.md).
func Steps(seq []string) []Step {
	var out []Step
	var run []string
	for _, k := range seq {
		if IsKeyName(k) {
			run = append(run, k)
			continue
		}
		if len(run) > 0 {
			out = append(out, Step{Keys: run})
			run = nil
		}
		out = append(out, Step{Literal: k})
	}
	if len(run) > 0 {
		out = append(out, Step{Keys: run})
	}
	return out
}

var namedKeys = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`Enter Escape Tab BTab Space BSpace Up Down Left Right
		Home End PageUp PageDown PgUp PgDn PPage NPage IC DC Insert Delete Any
		F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12
		KP/ KP* KP- KP7 KP8 KP9 KP+ KP4 KP5 KP6 KP1 KP2 KP3 KPEnter KP0 KP.`) {
		namedKeys[strings.ToLower(k)] = true
	}
}

// IsKeyName reports whether tmux reads s as one key: a single character, a
// named key (case-insensitively, as tmux does), or either behind C-, M- or
// S- modifiers (and the ^x form). Anything else tmux would type as text.
func IsKeyName(s string) bool {
	if utf8.RuneCountInString(s) == 1 {
		return true
	}
	if len(s) == 2 && s[0] == '^' {
		return true
	}
	for {
		if len(s) > 2 && (s[1] == '-') && strings.ContainsRune("CMScms", rune(s[0])) {
			s = s[2:]
			continue
		}
		break
	}
	return utf8.RuneCountInString(s) == 1 || namedKeys[strings.ToLower(s)]
}

// Effect describes a delivery for dry runs: the keys, or the payload and the
// keys after it, or the command.
func Effect(a *Action, agent, text string) string {
	switch a.Kind {
	case KindKeys:
		return "keys: " + strings.Join(quoteItems(a.Keys[agent]), " ")
	case KindText:
		s := "text: " + quoteText(text)
		if suf := a.Text[agent].Suffix; len(suf) > 0 {
			s += ", then keys: " + strings.Join(suf, " ")
		}
		return s
	}
	if a.Detach {
		return fmt.Sprintf("command (detached: a supervisor runs it, killed at %d ms, and reports its completion): %s", a.DetachTimeoutMS, a.Command)
	}
	return "command: " + a.Command
}

func quoteItems(seq []string) []string {
	out := make([]string, len(seq))
	for i, k := range seq {
		if IsKeyName(k) {
			out[i] = k
		} else {
			out[i] = quoteText(k)
		}
	}
	return out
}

func quoteText(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// Squash collapses whitespace runs to one space (how typed text is looked
// for on a screen that may wrap or pad it).
func Squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Probe is the piece of a typed text looked for on the screen: its first 30
// characters, squashed.
func Probe(text string) string {
	p := Squash(text)
	if utf8.RuneCountInString(p) > 30 {
		p = string([]rune(p)[:30])
	}
	return p
}
