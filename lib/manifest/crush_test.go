package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/screen"
)

// TestCrushQuotesFireNothing (issue 30 items 3 and 5): the conversation quoting Crush's own
// permission box, question help line, initialize question, model picker, key entry and busy
// help line (the mock's QUOTECRUSH, a code block with the box edges and plain text), and the
// other agents' prompts and option lists (QUOTE, QUOTEASK), match no rule of Crush's but the
// idle help line, at both widths: every other rule wants its words on the screen's last line.
func TestCrushQuotesFireNothing(t *testing.T) {
	a := bundledAgent("crush")
	for _, file := range []string{
		"idle-quote-dialogs-w120.txt", "idle-quote-dialogs-w80.txt",
		"idle-quote-w120.txt", "idle-quote-w80.txt",
		"idle-quote-question-w120.txt", "idle-quote-question-w80.txt",
	} {
		data, err := os.ReadFile(filepath.Join(fixturesRoot, "crush", file))
		if err != nil {
			t.Fatal(err)
		}
		f, err := fixture.Parse(file, data)
		if err != nil {
			t.Fatal(err)
		}
		matched := false
		for _, r := range a.Evaluate(screen.Screen{Raw: f.Screen, Title: f.Title, Height: f.Height}) {
			if !r.Matched {
				continue
			}
			if r.Rule.Label != "help-commands" {
				t.Errorf("%s: %s matched %q", file, r.Rule.Label, r.Excerpt)
			}
			matched = true
		}
		if !matched {
			t.Errorf("%s: the idle help line did not match", file)
		}
	}
}

// TestCrushModesOnFixtures: yolo where the editor's prompt is "Y" (fixtures/crush/*-yolo*, idle
// and running a tool with no prompt), none in the default mode, on a dialog or on the quotes.
func TestCrushModesOnFixtures(t *testing.T) {
	a := bundledAgent("crush")
	for _, c := range []struct{ file, want string }{
		{"idle-mode-yolo-w120.txt", "yolo"},
		{"idle-mode-yolo-w80.txt", "yolo"},
		{"working-yolo-tool-w120.txt", "yolo"},
		{"working-yolo-tool-w80.txt", "yolo"},
		{"idle-fresh-w80.txt", ""},
		{"working-tool-w120.txt", ""},
		{"blocked-bash-w80.txt", ""},
		{"idle-quote-dialogs-w120.txt", ""},
	} {
		data, err := os.ReadFile(filepath.Join(fixturesRoot, "crush", c.file))
		if err != nil {
			t.Fatal(err)
		}
		f, err := fixture.Parse(c.file, data)
		if err != nil {
			t.Fatal(err)
		}
		if got, line := a.ScreenMode(screen.Screen{Raw: f.Screen, Title: f.Title, Height: f.Height}); got != c.want {
			t.Errorf("%s: mode %q (%q), want %q", c.file, got, line, c.want)
		}
	}
}
