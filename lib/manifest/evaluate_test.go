package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tmaproject/tma/lib/screen"
)

// oneRule builds an agent with a single idle rule.
func oneRule(t *testing.T, region, match string) *Agent {
	t.Helper()
	src := minimal + "[[rules]]\nstate = \"idle\"\nregion = \"" + region + "\"\nmatch = " + match + "\n"
	a, err := Parse("myagent", "x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMatchKinds(t *testing.T) {
	// A synthetic screen: ANSI-coloured, a blank trailing row.
	raw := "header line\n\x1b[1mWorking\x1b[0m on it\n  \x1b[36m❯\x1b[0m 1. Yes\n    2. No\nfooter: ready\n\n"
	tests := []struct {
		name        string
		region      string
		match       string
		wantMatched bool
		wantExcerpt string
	}{
		{"contains", "visible", `{ contains = "Working on" }`, true, "Working on it"},
		{"contains reads stripped text", "visible", `{ contains = "\u001b[1m" }`, false, ""},
		{"contains spans lines", "visible", `{ contains = "Yes\n    2." }`, true, "❯ 1. Yes"},
		{"contains miss", "visible", `{ contains = "Thinking" }`, false, ""},
		{"regex multi-line anchors", "visible", `{ regex = '^\s*❯ 1\. Yes$' }`, true, "❯ 1. Yes"},
		{"regex across lines", "visible", `{ regex = 'Yes\n\s+2\. No' }`, true, "❯ 1. Yes"},
		{"regex miss", "visible", `{ regex = '^❯' }`, false, ""},
		{"line_regex", "visible", `{ line_regex = '^footer: (ready|busy)$' }`, true, "footer: ready"},
		{"line_regex one line at a time", "visible", `{ line_regex = 'Yes.*No' }`, false, ""},
		{"any", "visible", `{ any = [ { contains = "nope" }, { line_regex = '2\. No' } ] }`, true, "2. No"},
		{"any none", "visible", `{ any = [ { contains = "nope" }, { contains = "nada" } ] }`, false, ""},
		{"all", "visible", `{ all = [ { contains = "header" }, { contains = "footer" } ] }`, true, "header line"},
		{"all one missing", "visible", `{ all = [ { contains = "header" }, { contains = "nada" } ] }`, false, ""},
		{"not", "visible", `{ not = { contains = "nada" } }`, true, ""},
		{"not negates", "visible", `{ not = { contains = "header" } }`, false, ""},
		{"all with not keeps excerpt", "visible", `{ all = [ { not = { contains = "nada" } }, { contains = "ready" } ] }`, true, "footer: ready"},
		{"tail lines sees blank tail", "tail_lines(2)", `{ contains = "footer" }`, true, "footer: ready"},
		{"tail lines bounded", "tail_lines(1)", `{ contains = "footer" }`, false, ""},
		{"bottom non empty skips blank", "bottom_non_empty_lines(1)", `{ contains = "footer" }`, true, "footer: ready"},
		{"bottom non empty bounded", "bottom_non_empty_lines(2)", `{ contains = "Yes" }`, false, ""},
		{"visible uses height", "visible", `{ contains = "header" }`, true, "header line"},
		{"title", "title", `{ regex = '^✳ ' }`, true, "✳ probe"},
		{"title only", "title", `{ contains = "footer" }`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := oneRule(t, tt.region, tt.match)
			res := a.Evaluate(screen.Screen{Raw: raw, Title: "✳ probe", Height: 40})
			if len(res) != 1 {
				t.Fatalf("%d results", len(res))
			}
			if res[0].Matched != tt.wantMatched || res[0].Excerpt != tt.wantExcerpt {
				t.Errorf("matched=%v excerpt=%q, want %v %q", res[0].Matched, res[0].Excerpt, tt.wantMatched, tt.wantExcerpt)
			}
			if res[0].Rule != &a.Rules[0] {
				t.Error("Result.Rule does not point at the agent's rule")
			}
		})
	}
}

func TestVisibleHeight(t *testing.T) {
	a := oneRule(t, "visible", `{ contains = "old" }`)
	raw := "old\nnew1\nnew2\n"
	if res := a.Evaluate(screen.Screen{Raw: raw, Height: 2}); res[0].Matched {
		t.Error("visible read a line above the viewport")
	}
	if res := a.Evaluate(screen.Screen{Raw: raw, Height: 3}); !res[0].Matched {
		t.Error("visible missed a line inside the viewport")
	}
}

func TestExcerptBounded(t *testing.T) {
	a := oneRule(t, "visible", `{ contains = "x" }`)
	long := "   " + strings.Repeat("é", 100) + "x   "
	res := a.Evaluate(screen.Screen{Raw: long})
	if len(res[0].Excerpt) > MaxExcerpt || !strings.HasPrefix(res[0].Excerpt, "é") || strings.ContainsRune(res[0].Excerpt, '\uFFFD') {
		t.Errorf("excerpt %q (%d bytes)", res[0].Excerpt, len(res[0].Excerpt))
	}
}

func TestDecide(t *testing.T) {
	rules := []Rule{
		{Index: 0, State: "idle", Label: "idle-a"},
		{Index: 1, State: "working", Label: "work-low", Priority: 1},
		{Index: 2, State: "working", Label: "work-high", Priority: 5},
		{Index: 3, State: "working", Label: "work-high-later", Priority: 5},
		{Index: 4, State: "blocked", Label: "blocked-low", Priority: -10},
		{Index: 5, State: "unknown", Label: "unknown", Priority: 1000},
		{Index: 6, State: "idle", Label: "history", SkipStateUpdate: true},
	}
	tests := []struct {
		name     string
		matched  []int
		want     string // label, "" for nil
		wantSkip bool
	}{
		{"nothing", nil, "", false},
		{"idle only", []int{0}, "idle-a", false},
		{"working beats idle", []int{0, 1}, "work-low", false},
		{"priority within state", []int{1, 2}, "work-high", false},
		{"ties go to file order", []int{3, 2}, "work-high", false},
		{"blocked beats working whatever the priority", []int{0, 2, 4}, "blocked-low", false},
		{"unknown is weakest", []int{5, 0}, "idle-a", false},
		{"unknown alone", []int{5}, "unknown", false},
		{"skip wins", []int{4, 6}, "history", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := make([]Result, len(rules))
			for i := range rules {
				res[i] = Result{Rule: &rules[i]}
			}
			for _, i := range tt.matched {
				res[i].Matched = true
			}
			best, skip := Decide(res)
			got := ""
			if best != nil {
				got = best.Rule.Label
			}
			if got != tt.want || skip != tt.wantSkip {
				t.Errorf("Decide = %q skip=%v, want %q skip=%v", got, skip, tt.want, tt.wantSkip)
			}
		})
	}
}

func TestEvaluateFileOrder(t *testing.T) {
	src := minimal + `
[[rules]]
state = "idle"
region = "visible"
match = { contains = "a" }
[[rules]]
state = "working"
region = "title"
match = { contains = "b" }
[[rules]]
state = "blocked"
region = "tail_lines(1)"
match = { contains = "a" }
`
	a, err := Parse("myagent", "x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := a.Evaluate(screen.Screen{Raw: "a\nz\n", Title: "b"})
	var got []string
	for _, r := range res {
		got = append(got, r.Rule.State+":"+map[bool]string{true: "match", false: "-"}[r.Matched])
	}
	if diff := cmp.Diff([]string{"idle:match", "working:match", "blocked:-"}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if best, _ := Decide(res); best.Rule.State != "working" {
		t.Errorf("winner %s", best.Rule.State)
	}
}
