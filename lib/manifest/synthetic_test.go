package manifest

import (
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
)

// TestSyntheticScreens runs the bundled manifests on the hand-written screens in
// testdata/screens. They check the rules' logic (what must win over what); they prove
// nothing about the real agents, which is what ../../fixtures is for.
func TestSyntheticScreens(t *testing.T) {
	screens, err := fixture.LoadDir("testdata/screens")
	if err != nil {
		t.Fatal(err)
	}
	if len(screens) == 0 {
		t.Fatal("no synthetic screens")
	}
	agents, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Agent{}
	for _, a := range agents {
		byName[a.Name] = a
	}
	for _, f := range screens {
		t.Run(f.Name, func(t *testing.T) {
			a := byName[f.Agent]
			if a == nil {
				t.Fatalf("no bundled manifest for %q", f.Agent)
			}
			if !a.MatchesTitle(f.Title) {
				t.Errorf("title %q fails %s's title_patterns", f.Title, a.Name)
			}
			res, best, skip := verdict(a, f)
			got := "unknown/"
			if best != nil {
				got = best.Rule.State + "/" + best.Rule.Detail
			}
			if skip {
				got = "skip"
			}
			if want := f.State + "/" + f.Detail; got != want {
				t.Errorf("got %s, want %s; %s", got, want, matchedSummary(a, res))
			}
		})
	}
}
