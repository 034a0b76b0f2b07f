package manifest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/screen"
)

var reANSI = regexp.MustCompile(`\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]`)

// TestPunctuationDrift (issue 30 item 3): the small edits an agent makes to its chrome
// between releases, applied to captured screens: an ellipsis that goes or becomes three dots
// or a stop, a footer separator that changes. Claude 2.1.332 did the first to its security
// notes (captured: fixtures/claude/blocked-setup-security-*); the others are the same edit
// on the other agents' anchors. Each screen must keep its verdict.
func TestPunctuationDrift(t *testing.T) {
	cases := []struct {
		file     string
		old, new string
	}{
		{"claude/2.1.197/blocked-setup-security-w80.txt", "Press Enter to continue…", "Press Enter to continue."},
		{"claude/2.1.197/blocked-setup-security-w120.txt", "Press Enter to continue…", "Press Enter to continue..."},
		{"codex/blocked-setup-hooks-w80.txt", "enter confirm · esc skip", "enter confirm | esc skip"},
		{"codex/blocked-question-w120.txt", "tab to add notes | enter to submit answer | esc to interrupt", "tab to add notes · enter to submit answer · esc to interrupt"},
		{"pi/working-streaming-w120.txt", "Working...", "Working…"},
		{"pi/working-streaming-w120.txt", "Working...", "Working"},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(fixturesRoot, c.file))
		if err != nil {
			t.Fatal(err)
		}
		f, err := fixture.Parse(c.file, data)
		if err != nil {
			t.Fatal(err)
		}
		plain := reANSI.ReplaceAllString(f.Screen, "")
		if !strings.Contains(plain, c.old) {
			t.Fatalf("%s: no %q to edit", c.file, c.old)
		}
		edited := strings.ReplaceAll(plain, c.old, c.new)
		a := bundledAgent(f.Agent)
		best, _ := Decide(a.Evaluate(screen.Screen{Raw: edited, Title: f.Title, Height: f.Height}))
		if best == nil || best.Rule.State != f.State || best.Rule.Detail != f.Detail {
			got := "none"
			if best != nil {
				got = best.Rule.State + "/" + best.Rule.Detail + " (" + best.Rule.Label + ")"
			}
			t.Errorf("%s with %q for %q: %s, want %s/%s", c.file, c.new, c.old, got, f.State, f.Detail)
		}
	}
}
