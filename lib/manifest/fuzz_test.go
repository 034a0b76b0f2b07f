package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/screen"
)

// FuzzParse reads arbitrary bytes as a user manifest, the way a file in
// ~/.config/tma/agents/ is read. It may refuse them, naming the file; it
// never panics or hangs. A manifest it accepts is then used the way every
// stage uses one (rules on captured screens, hook maps, identity), which
// compiles each lazily checked pattern: a pattern the parse let through
// must compile.
func FuzzParse(f *testing.F) {
	bundled, err := filepath.Glob("../../manifests/agents/*.toml")
	if err != nil || len(bundled) == 0 {
		f.Fatalf("no bundled manifests (%v)", err)
	}
	for _, name := range bundled {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"[capture]\n",
		"min_engine_version = \"99.0\"\n[capture]\n",
		"min_engine_version = 1\n",
		"[capture]\nvisible = [\"blocked\"]\n[[rules]]\nstate = \"blocked\"\nregion = \"tail_lines(3)\"\nmatch = { regex = '(?i)allow\\s+\\w+' }\n",
		"[capture]\n[[rules]]\nstate = \"idle\"\nregion = \"visible\"\nmatch = { not = { any = [{ contains = \"x\" }, { line_regex = \"^>\" }] } }\n",
		"[capture]\n[[rules]]\nstate = \"working\"\nregion = \"bottom_non_empty_lines(0)\"\nmatch = { contains = \"\" }\n",
		"[identity]\nprocess_names = [\"claude\"]\ntitle_patterns = [\"^✳\"]\n[capture]\n[hooks]\n[[hooks.map]]\nevent = \"Stop\"\nmatcher = \"x\"\nstate = \"idle\"\n",
		"[capture]\n[telemetry.context]\nchannel = \"statusline\"\nformat = \"json\"\n",
		"[capture\n",
	} {
		f.Add([]byte(s))
	}
	screens := fuzzScreens(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse("fuzz", "fuzz.toml", data)
		if err != nil {
			if a != nil {
				t.Fatalf("an agent and an error: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.toml: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if a.Name != "fuzz" || a.Source != "fuzz.toml" {
			t.Fatalf("agent = %q from %q", a.Name, a.Source)
		}
		for _, s := range screens {
			checkResults(t, a, s)
		}
		for _, ev := range []string{"Stop", "PreToolUse", "SessionStart", ""} {
			if m := a.MapEvent(ev, `{"tool_name":"Bash"}`); m != nil && m.Event != ev {
				t.Fatalf("MapEvent(%q) returned the map of %q", ev, m.Event)
			}
		}
		a.MatchesTitle("✳ claude")
		a.MatchesProcess("claude")
		for _, st := range States {
			a.Covers(st)
			a.IsVisible(st)
		}
		for _, r := range a.Rules {
			if _, err := screen.ParseRegion(r.Region); err != nil {
				t.Fatalf("accepted rule region %q does not parse back: %v", r.Region, err)
			}
			_ = r.Match.String()
		}
	})
}

// FuzzEvaluate runs every bundled agent's rules over an arbitrary screen:
// any bytes a pane can hold, any title, any height. Each rule gets a
// result, an excerpt is a bounded line of the stripped screen, and the
// decision is a matched rule (a history view only when a
// skip_state_update rule matched).
func FuzzEvaluate(f *testing.F) {
	fxs, err := fixture.LoadDir(fixturesRoot)
	if err != nil || len(fxs) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	for _, fx := range fxs {
		f.Add(fx.Screen, fx.Title, fx.Height)
	}
	f.Add("\x1b]0;title\x07\x1b[31mDo you want to proceed?\x1b[0m\n\x1b", "✳ t", 0)
	f.Add("\x1bP unterminated\n❯ 1. Yes\n", "", -1)
	f.Add(strings.Repeat("\n", 300), "", 1<<30)
	agents, err := Bundled()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw, title string, height int) {
		s := screen.Screen{Raw: raw, Title: title, Height: height}
		for _, a := range agents {
			checkResults(t, a, s)
		}
	})
}

func checkResults(t *testing.T, a *Agent, s screen.Screen) {
	t.Helper()
	res := a.Evaluate(s)
	if len(res) != len(a.Rules) {
		t.Fatalf("%s: %d results for %d rules", a.Name, len(res), len(a.Rules))
	}
	text := s.Text() + "\n" + screen.StripANSI(s.Title)
	for _, r := range res {
		if !r.Matched && r.Excerpt != "" {
			t.Fatalf("%s: unmatched rule %q has excerpt %q", a.Name, r.Rule.Label, r.Excerpt)
		}
		if len(r.Excerpt) > MaxExcerpt {
			t.Fatalf("%s: excerpt %q is over %d bytes", a.Name, r.Excerpt, MaxExcerpt)
		}
		// A screen line never holds a newline; a title may (tmux keeps it).
		if r.Rule.region.Kind != screen.Title && strings.ContainsRune(r.Excerpt, '\n') {
			t.Fatalf("%s: excerpt %q is more than one line", a.Name, r.Excerpt)
		}
		if utf8.ValidString(text) && !utf8.ValidString(r.Excerpt) {
			t.Fatalf("%s: excerpt %q cut inside a rune", a.Name, r.Excerpt)
		}
		if !strings.Contains(text, r.Excerpt) {
			t.Fatalf("%s: excerpt %q is not on the stripped screen", a.Name, r.Excerpt)
		}
	}
	best, skip := Decide(res)
	switch {
	case best == nil && skip:
		t.Fatalf("%s: a history view with no rule", a.Name)
	case best != nil && !best.Matched:
		t.Fatalf("%s: decided by an unmatched rule %q", a.Name, best.Rule.Label)
	case skip && !best.Rule.SkipStateUpdate:
		t.Fatalf("%s: a history view decided by %q, which is not skip_state_update", a.Name, best.Rule.Label)
	}
}

var screensOnce = sync.OnceValues(func() ([]*fixture.Fixture, error) { return fixture.LoadDir(fixturesRoot) })

// fuzzScreens is one captured screen per agent and state: enough for a
// fuzzed manifest's rules to meet real chrome without slowing each run.
func fuzzScreens(f *testing.F) []screen.Screen {
	fxs, err := screensOnce()
	if err != nil {
		f.Fatal(err)
	}
	seen := map[string]bool{}
	var out []screen.Screen
	for _, fx := range fxs {
		if k := fx.Agent + "/" + fx.State; !seen[k] {
			seen[k] = true
			out = append(out, screen.Screen{Raw: fx.Screen, Title: fx.Title, Height: fx.Height})
		}
	}
	return out
}
