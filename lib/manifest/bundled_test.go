package manifest

import (
	"reflect"
	"slices"
	"testing"
)

func TestBundledParse(t *testing.T) {
	agents, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range agents {
		names = append(names, a.Name)
		if !a.Bundled || a.Source != "bundled:"+a.Name+".toml" {
			t.Errorf("%s: Bundled=%v Source=%q", a.Name, a.Bundled, a.Source)
		}
	}
	want := []string{"claude", "codex", "copilot", "crush", "cursor", "gemini", "opencode", "pi", "qwen"}
	if len(names) != len(want) {
		t.Fatalf("bundled agents = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("bundled agents = %v, want %v", names, want)
		}
	}
}

// TestBundledEqualsTOML holds the generated values to the TOML they were
// generated from: every field, the regex sources and the unexported alias
// and region tables, deep-equal to what the parser makes of each file.
func TestBundledEqualsTOML(t *testing.T) {
	gen, _ := Bundled()
	parsed := parseEmbedded(t)
	if len(gen) != len(parsed) {
		t.Fatalf("%d generated agents, %d manifests/agents files: run go generate ./lib/manifest", len(gen), len(parsed))
	}
	for i, p := range parsed {
		if !reflect.DeepEqual(gen[i], p) {
			t.Errorf("%s: the generated manifest differs from %s: run go generate ./lib/manifest", p.Name, p.Source)
		}
	}
	// The identity index scan reads: each agent's process names and title
	// patterns, as the TOML lists them.
	for i, p := range parsed {
		if !slices.Equal(gen[i].ProcessNames, p.ProcessNames) {
			t.Errorf("%s: process names %v, the TOML has %v", p.Name, gen[i].ProcessNames, p.ProcessNames)
		}
		var g, w []string
		for _, re := range gen[i].TitlePatterns {
			g = append(g, re.String())
		}
		for _, re := range p.TitlePatterns {
			w = append(w, re.String())
		}
		if !slices.Equal(g, w) {
			t.Errorf("%s: title patterns %q, the TOML has %q", p.Name, g, w)
		}
	}
}

// TestBundledFresh: each call builds new values, so one load's overrides
// (extra process names) and compiled patterns never reach another's.
func TestBundledFresh(t *testing.T) {
	a, b := bundledAgent("claude"), bundledAgent("claude")
	if a == b || a.Rules[0].Match == b.Rules[0].Match || &a.ProcessNames[0] == &b.ProcessNames[0] {
		t.Fatal("bundledAgent shares values between calls")
	}
	if bundledAgent("nosuch") != nil {
		t.Error("an unknown name built an agent")
	}
}
