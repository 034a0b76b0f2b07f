package manifest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/screen"
)

// fixturesRoot is the tree of screens captured from the real agents.
const fixturesRoot = "../../fixtures"

// knownUnproven lists bundled rules (agent/label) that no captured screen can prove yet,
// each with the reason. They are logged, not failed. Keep this list short and explained.
var knownUnproven = map[string]string{}

// verdict evaluates agent a on a fixture's screen.
func verdict(a *Agent, f *fixture.Fixture) ([]Result, *Result, bool) {
	res := a.Evaluate(screen.Screen{Raw: f.Screen, Title: f.Title, Height: f.Height})
	best, skip := Decide(res)
	return res, best, skip
}

func ruleName(a *Agent, r *Rule) string {
	if r.Label != "" {
		return fmt.Sprintf("%s/%s (rules[%d])", a.Name, r.Label, r.Index)
	}
	return fmt.Sprintf("%s/rules[%d]", a.Name, r.Index)
}

func matchedSummary(a *Agent, res []Result) string {
	var parts []string
	for _, r := range res {
		if r.Matched {
			parts = append(parts, fmt.Sprintf("%s %s/%s %q", ruleName(a, r.Rule), r.Rule.State, r.Rule.Detail, r.Excerpt))
		}
	}
	if len(parts) == 0 {
		return "no rule matched"
	}
	return "matched: " + strings.Join(parts, "; ")
}

// TestFixtures runs every bundled manifest on every captured screen: the winning rule must
// give the state and detail the fixture's header names (state unknown: no rule may match).
// A rule is proven by a fixture when the verdict is right and the rule matched with the
// fixture's own state and detail. Every rule must be proven at two widths at least, once
// that agent has captured fixtures (an agent without any is skipped and its rules listed).
func TestFixtures(t *testing.T) {
	fixtures, err := fixture.LoadDir(fixturesRoot)
	if err != nil {
		t.Fatal(err)
	}
	agents, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Agent{}
	for _, a := range agents {
		byName[a.Name] = a
	}

	// proof[agent][rule index] = widths at which that rule decided a fixture correctly.
	proof := map[string]map[int]map[int][]string{}
	captured := map[string]int{} // fixtures per agent
	for _, f := range fixtures {
		captured[f.Agent]++
		t.Run("screen/"+f.Name, func(t *testing.T) {
			a := byName[f.Agent]
			if a == nil {
				t.Fatalf("no bundled manifest for agent %q", f.Agent)
			}
			// The pane command is the process tmux names; where it is the agent's own
			// name the title need not agree (an extension may rename it).
			if f.Title != "" && !a.MatchesTitle(f.Title) && (f.Command == "" || !a.Identifies(f.Command, f.Title)) {
				t.Errorf("title %q does not satisfy %s's title_patterns (pane command %q)", f.Title, a.Name, f.Command)
			}
			if f.Command != "" && !a.MatchesProcess(f.Command) {
				t.Logf("note: pane command %q is not one of %s's process names (identity needs the process walk)", f.Command, a.Name)
			}
			res, best, skip := verdict(a, f)
			if f.State == StateUnknown {
				if best != nil {
					t.Errorf("want no rule to match (state unknown); %s", matchedSummary(a, res))
				}
				return
			}
			switch {
			case skip:
				t.Errorf("want %s/%s, got skip_state_update from %s", f.State, f.Detail, ruleName(a, best.Rule))
				return
			case best == nil:
				t.Errorf("want %s/%s, got no match", f.State, f.Detail)
				return
			case best.Rule.State != f.State || best.Rule.Detail != f.Detail:
				t.Errorf("want %s/%s, got %s/%s from %s; %s", f.State, f.Detail, best.Rule.State, best.Rule.Detail, ruleName(a, best.Rule), matchedSummary(a, res))
				return
			}
			if f.Width <= 0 {
				t.Errorf("header lacks width: the fixture cannot prove a rule")
				return
			}
			// Every rule that fired for the fixture's own state and detail is proven by it:
			// the verdict is right, and the rule saw the chrome it is written for.
			for _, r := range res {
				if !r.Matched || r.Rule.State != f.State || r.Rule.Detail != f.Detail {
					continue
				}
				if proof[a.Name] == nil {
					proof[a.Name] = map[int]map[int][]string{}
				}
				if proof[a.Name][r.Rule.Index] == nil {
					proof[a.Name][r.Rule.Index] = map[int][]string{}
				}
				w := proof[a.Name][r.Rule.Index]
				w[f.Width] = append(w[f.Width], f.Name)
			}
		})
	}

	for _, a := range agents {
		t.Run("proof/"+a.Name, func(t *testing.T) {
			var unproven []string
			for i := range a.Rules {
				r := &a.Rules[i]
				widths := proof[a.Name][r.Index]
				var ws []int
				var files []string
				for w, fs := range widths {
					ws = append(ws, w)
					files = append(files, fs...)
				}
				slices.Sort(ws)
				slices.Sort(files)
				if len(ws) >= 2 {
					t.Logf("proven   %s at widths %v by %s", ruleName(a, r), ws, strings.Join(files, ", "))
					continue
				}
				key := a.Name + "/" + r.Label
				if why, ok := knownUnproven[key]; ok {
					t.Logf("unproven %s (known: %s); widths %v", ruleName(a, r), why, ws)
					continue
				}
				unproven = append(unproven, fmt.Sprintf("%s (widths %v)", ruleName(a, r), ws))
			}
			if len(unproven) == 0 {
				return
			}
			if captured[a.Name] == 0 {
				t.Skipf("no fixtures/%s/*.txt yet; unproven: %s", a.Name, strings.Join(unproven, ", "))
			}
			for _, u := range unproven {
				t.Errorf("unproven: %s: no captured screen of its state matched it at two widths", u)
			}
		})
	}
}
