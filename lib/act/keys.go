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

// A keys action answers a question's option N through placeholders in its
// sequences: "{arg}" is the digit N, "{arg-1}*KEY" is KEY pressed N-1
// times (a selector that opens on option 1). Such an action takes exactly
// one --arg, an option number from 1 to 9, and is still a keys action:
// the same gate, lock, guarded send-keys and freshness checks as approve,
// which is what lets a device answer a question remotely (docs/actions.md).
const (
	ArgItem       = "{arg}"
	argRepeatHead = "{arg-1}*"
)

// checkArgItem is the manifest rule for an item that starts like a
// placeholder: it must be one.
func checkArgItem(k string) (isArg bool, err error) {
	if !strings.HasPrefix(k, "{arg") {
		return false, nil
	}
	if k == ArgItem {
		return true, nil
	}
	if key, ok := strings.CutPrefix(k, argRepeatHead); ok && IsKeyName(key) {
		return true, nil
	}
	return false, fmt.Errorf("%q: a placeholder is %q or %q followed by a key name", k, ArgItem, argRepeatHead)
}

// TakesArg reports whether a is a keys action whose sequences carry the
// option placeholders.
func TakesArg(a *Action) bool {
	if a.Kind != KindKeys {
		return false
	}
	for _, seq := range a.Keys {
		for _, k := range seq {
			if ok, _ := checkArgItem(k); ok {
				return true
			}
		}
	}
	return false
}

// CheckOption is the rule for the --arg of an action that TakesArg.
func CheckOption(args []string) error {
	if len(args) != 1 || len(args[0]) != 1 || args[0][0] < '1' || args[0][0] > '9' {
		return fmt.Errorf("pass the option's number as --arg N, one number from 1 to 9 (got %q)", strings.Join(args, " "))
	}
	return nil
}

// ExpandArg is seq with its placeholders filled for option arg (already
// checked by CheckOption).
func ExpandArg(seq []string, arg string) []string {
	n := int(arg[0] - '0')
	var out []string
	for _, k := range seq {
		switch {
		case k == ArgItem:
			out = append(out, arg)
		case strings.HasPrefix(k, argRepeatHead):
			for range n - 1 {
				out = append(out, strings.TrimPrefix(k, argRepeatHead))
			}
		default:
			out = append(out, k)
		}
	}
	return out
}
