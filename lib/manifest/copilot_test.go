package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/screen"
)

func copilotFixture(t *testing.T, file string) screen.Screen {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixturesRoot, "copilot", file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := fixture.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return screen.Screen{Raw: f.Screen, Title: f.Title, Height: f.Height}
}

// TestCopilotQuotesFireNothing (issue 30 items 3 and 5): the conversation quoting Copilot's
// own permission prompt, question form, trust gate, login questions and working footer (the
// mock's QUOTECOPILOT), and the other agents' prompts and option lists (QUOTE, QUOTEASK),
// matches no rule of Copilot's but the idle input box, at both widths.
func TestCopilotQuotesFireNothing(t *testing.T) {
	a := bundledAgent("copilot")
	for _, file := range []string{
		"idle-quote-copilot-w120.txt", "idle-quote-copilot-w80.txt",
		"idle-quote-w120.txt", "idle-quote-w80.txt",
		"idle-quote-question-w120.txt", "idle-quote-question-w80.txt",
	} {
		sc := copilotFixture(t, file)
		matched := false
		for _, r := range a.Evaluate(sc) {
			if !r.Matched {
				continue
			}
			if r.Rule.Label != "input-box" {
				t.Errorf("%s: %s matched %q", file, r.Rule.Label, r.Excerpt)
			}
			matched = true
		}
		if !matched {
			t.Errorf("%s: the input box did not match", file)
		}
	}
}

// TestCopilotModesOnFixtures: the mode Copilot's idle footer names (fixtures/copilot/idle-mode-*
// after shift+tab, Interactive elsewhere); a working footer and a dialog name none.
func TestCopilotModesOnFixtures(t *testing.T) {
	a := bundledAgent("copilot")
	for _, c := range []struct{ file, want string }{
		{"idle-fresh-w120.txt", "interactive"},
		{"idle-fresh-w80.txt", "interactive"},
		{"idle-mode-plan-w120.txt", "plan"},
		{"idle-mode-plan-w80.txt", "plan"},
		{"idle-mode-autopilot-w120.txt", "autopilot"},
		{"idle-mode-autopilot-w80.txt", "autopilot"},
		{"idle-quote-copilot-w80.txt", "interactive"},
		// A draft in the box: the footer drops "open sidebar" for "@ files · # issues".
		{"idle-typed-w80.txt", "interactive"},
		{"idle-typed-w120.txt", "interactive"},
		{"working-tool-w80.txt", ""},
		{"blocked-bash-w120.txt", ""},
	} {
		if got, line := a.ScreenMode(copilotFixture(t, c.file)); got != c.want {
			t.Errorf("%s: mode %q (%q), want %q", c.file, got, line, c.want)
		}
	}
}
