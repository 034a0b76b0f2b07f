package tmux

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/testkit"
)

// nasty are strings that have broken shell and tmux quoting somewhere.
var nasty = []string{
	"", "'", "''", `\'`, `'\''`, `"`, `\`, `\\`, "a'b\"c\\d", "#{pane_id}", "##{pane_id}", "#(touch /tmp/tma-pwned)",
	"#[fg=red]x", "#", "##", "#{", "}", "{", "; kill-server", "x ; display -p y", "$HOME", "${HOME}", "~", "~root",
	"%if 1", "%H:%M %%", "-t", "--", "a\tb", "✳ Claude Code", "日本語", "\xff\xfe", "\u202e", "\u00a0", "#{?1,yes,no}", "#{s/a/b/:pane_id}",
}

// FuzzQuote holds the quoting grammar: any string Quote wraps reads back
// from tmux's parser as exactly one word, byte for byte, and any string
// Literal escapes expands as a format to itself with no directive left
// live (#{…}, #(…), #[…]; a "#[" stays escaped, as tmux keeps it). lib/tmux's real-server test checks the same
// strings against tmux itself.
func FuzzQuote(f *testing.F) {
	for _, s := range nasty {
		f.Add(s)
	}
	for _, fx := range seedFixtures(f) {
		f.Add(fx.Title)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// No quoting survives tmux's reading of bytes that are not UTF-8;
		// CheckValue keeps them off every line tma writes.
		if utf8.ValidString(s) {
			cmds, err := testkit.TmuxCommands("display " + Quote(s))
			if err != nil {
				t.Fatalf("Quote(%q) = %s: %v", s, Quote(s), err)
			}
			if want := [][]string{{"display", s}}; !slices.EqualFunc(cmds, want, slices.Equal) {
				t.Fatalf("Quote(%q) = %s reads back as %q", s, Quote(s), cmds)
			}
		}
		got, err := testkit.FormatText(Literal(s))
		if err != nil || got != Expanded(s) {
			t.Fatalf("Literal(%q) = %q expands to %q (%v)", s, Literal(s), got, err)
		}
	})
}

// FuzzWriteLine holds the guarded write's shape for any option name,
// value and guard: Line refuses what cannot be written (a control byte, a
// name that is not a plain @option) and otherwise renders one line that
// tmux reads as the guard, then, parsed again as if-shell does, exactly
// the sets given, each value one word byte for byte.
func FuzzWriteLine(f *testing.F) {
	for i, s := range nasty {
		f.Add("@agent_pending_summary", s, "#{e|<:#{@agent_evidence_at},5}", i%3 == 0, i%5 == 0)
		f.Add("@x", "v", s, false, false)
	}
	f.Add("@a$b", "v", "", false, false)
	f.Add("@a}", "v", "#{==:#{@agent_state},}", false, false)
	f.Add("agent", "v", "", false, false)
	f.Add("@a\nb", "v", "", false, false)
	for _, fx := range seedFixtures(f) {
		f.Add("@agent_pending_summary", fx.Title, "", false, false)
	}
	f.Fuzz(func(t *testing.T, name, value, guard string, format, unset bool) {
		sets := []Set{{Name: "@agent_state", Value: "idle"}, {Name: name, Value: value, Format: format, Unset: unset}, {Name: "@agent_stamped_at", Value: "1"}}
		w := Write{Pane: "%7", Guard: guard, Sets: sets}
		line, err := w.Line()
		if err != nil {
			if CheckValue(value) == nil && CheckValue(guard) == nil && validName(name) {
				t.Fatalf("refused a writable tuple: %v", err)
			}
			return
		}
		if CheckValue(line) != nil {
			t.Fatalf("line carries a control byte: %q", line)
		}
		cmds, err := testkit.TmuxCommands(line)
		if err != nil {
			t.Fatalf("line does not parse: %v\n%s", err, line)
		}
		if guard != "" {
			if len(cmds) != 1 || len(cmds[0]) != 6 || !slices.Equal(cmds[0][:5], []string{"if-shell", "-F", "-t", "%7", guard}) {
				t.Fatalf("guarded line reads as %q, want if-shell -F -t %%7 <guard> <body>", cmds)
			}
			if cmds, err = testkit.TmuxCommands(cmds[0][5]); err != nil {
				t.Fatalf("if-shell body does not parse: %v\n%s", err, line)
			}
		}
		var want [][]string
		for _, s := range sets {
			switch {
			case s.Unset:
				want = append(want, []string{"set", "-pu", "-t", "%7", s.Name})
			case s.Format:
				want = append(want, []string{"set", "-pF", "-t", "%7", s.Name, s.Value})
			default:
				want = append(want, []string{"set", "-p", "-t", "%7", s.Name, s.Value})
			}
		}
		if !slices.EqualFunc(cmds, want, slices.Equal) {
			t.Fatalf("sets read back as\n%q\nwant\n%q\nline: %s", cmds, want, line)
		}
	})
}

// FuzzScopedSet: a rollup's target and value are single words to tmux,
// byte for byte (a session name's tabs and doubled blanks included).
func FuzzScopedSet(f *testing.F) {
	for _, s := range nasty {
		f.Add(true, "s:1", s)
		f.Add(false, s, "blocked:1 idle:2")
	}
	f.Fuzz(func(t *testing.T, session bool, target, value string) {
		scope, flag := "window", []string{"-w"}
		if session {
			scope, flag = "session", nil
		}
		line, err := ScopedSet(scope, target, "@agent_summary", value)
		if err != nil {
			if CheckValue(value) == nil && CheckValue(target) == nil {
				t.Fatalf("refused %q on %q: %v", value, target, err)
			}
			return
		}
		cmds, err := testkit.TmuxCommands(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		want := append(append([]string{"set"}, flag...), "-t", target, "@agent_summary", value)
		if value == "" {
			want = append(append([]string{"set"}, flag...), "-u", "-t", target, "@agent_summary")
		}
		if len(cmds) != 1 || !slices.Equal(cmds[0], want) {
			t.Fatalf("%s reads as %q, want %q", line, cmds, want)
		}
	})
}

// validName is the option-name rule Line should apply: @ and a plain name.
func validName(s string) bool {
	if len(s) < 2 || s[0] != '@' {
		return false
	}
	return strings.Trim(s[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// Expanded is what tmux makes of Literal(s) in a format: s, with each
// "#[" left escaped as "##[" (what the status line then draws as "#[").
func Expanded(s string) string { return strings.ReplaceAll(s, "#[", "##[") }

func seedFixtures(f *testing.F) []*fixture.Fixture {
	fxs, err := fixture.LoadDir("../../fixtures")
	if err != nil {
		f.Fatal(err)
	}
	return fxs
}
