package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/screen"
)

// TestClaudeModesOnFixtures: the mode Claude's footer names, read from the captured screens
// of each permission mode (fixtures/claude/idle-mode-*, -scenario modes and bypass of the lab,
// 2.1.332), a turn running in a mode, and the conversation quoting every mode footer
// (idle-quote-gate: only the real footer, manual, may be read). 2.1.197's default footer
// names no mode.
func TestClaudeModesOnFixtures(t *testing.T) {
	a := bundledAgent("claude")
	cases := []struct{ file, want string }{
		{"idle-mode-auto-w120.txt", "auto"},
		{"idle-mode-manual-w120.txt", "default"},
		{"idle-mode-accept-edits-w120.txt", "acceptEdits"},
		{"idle-mode-plan-w120.txt", "plan"},
		{"idle-mode-bypass-w120.txt", "bypassPermissions"},
		{"working-auto-tool-w120.txt", "auto"},
		{"working-tool-w80.txt", "default"},
		{"working-tool-w120.txt", "default"},
		{"idle-fresh-w80.txt", "auto"},
		{"idle-quote-gate-w120.txt", "acceptEdits"},
		{"2.1.197/idle-fresh-w80.txt", ""},
		{"2.1.197/working-tool-w120.txt", ""},
	}
	for _, c := range cases {
		path := filepath.Join(fixturesRoot, "claude", c.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		f, err := fixture.Parse(c.file, data)
		if err != nil {
			t.Fatal(err)
		}
		got, line := a.ScreenMode(screen.Screen{Raw: f.Screen, Title: f.Title, Height: f.Height})
		if got != c.want {
			t.Errorf("%s: mode %q (%q), want %q", c.file, got, line, c.want)
		}
	}
}

// TestModesParse: a [[modes]] entry needs a one-word name, a region and a match.
func TestModesParse(t *testing.T) {
	base := "min_engine_version = \"0.1\"\n[identity]\nprocess_names = [\"x\"]\n[capture]\n"
	for _, bad := range []string{
		"[[modes]]\nregion = \"title\"\nmatch = { contains = \"a\" }\n",
		"[[modes]]\nname = \"two words\"\nregion = \"title\"\nmatch = { contains = \"a\" }\n",
		"[[modes]]\nname = \"a\"\nmatch = { contains = \"a\" }\n",
		"[[modes]]\nname = \"a\"\nregion = \"title\"\n",
	} {
		if _, err := Parse("x", "x.toml", []byte(base+bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	a, err := Parse("x", "x.toml", []byte(base+"[[modes]]\nname = \"fast\"\nregion = \"bottom_non_empty_lines(2)\"\nmatch = { line_regex = '^fast mode$' }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := a.ScreenMode(screen.Screen{Raw: "hello\nfast mode\n", Height: 2}); m != "fast" {
		t.Errorf("mode %q", m)
	}
	if m, _ := a.ScreenMode(screen.Screen{Raw: "fast mode\nhello\nthere\n", Height: 3}); m != "" {
		t.Errorf("mode %q outside the region", m)
	}
}

// TestClaudeQuoteGateFiresNothing (issue 30 item 3): the conversation quoting 2.1.332's
// trust gate, theme picker, security notes, API-key question, spinner line and mode footers
// (the mock's QUOTEGATE, fixtures/claude/idle-quote-gate-*) matches no rule but the prompt box,
// however far the widened rules reach.
func TestClaudeQuoteGateFiresNothing(t *testing.T) {
	a := bundledAgent("claude")
	for _, file := range []string{"idle-quote-gate-w120.txt", "idle-quote-gate-w80.txt"} {
		data, err := os.ReadFile(filepath.Join(fixturesRoot, "claude", file))
		if err != nil {
			t.Fatal(err)
		}
		f, err := fixture.Parse(file, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range a.Evaluate(screen.Screen{Raw: f.Screen, Title: f.Title, Height: f.Height}) {
			if r.Matched && r.Rule.Label != "prompt-box" {
				t.Errorf("%s: %s matched %q", file, r.Rule.Label, r.Excerpt)
			}
		}
	}
}
