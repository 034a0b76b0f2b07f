package manifest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/screen"
)

// TestLoadDecodesOnFirstUse: a load reads no user file until its agent is
// asked for, reads each at most once, and reports a broken one when read.
func TestLoadDecodesOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "myagent.toml", minimal)
	writeFile(t, dir, "broken.toml", minimal+"bogus = 1\n")
	var heard []string
	s, err := Load(LoadOptions{UserDir: dir, OnProblem: func(p Problem) { heard = append(heard, p.File) }})
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Get("claude"); a == nil || !a.Bundled {
		t.Fatalf("Get(claude) = %+v", a)
	}
	if len(heard) != 0 {
		t.Fatalf("asking for claude read other files: %v", heard)
	}
	a := s.Get("myagent")
	if a == nil || a.Source != filepath.Join(dir, "myagent.toml") {
		t.Fatalf("Get(myagent) = %+v", a)
	}
	// Decoded once: the file is not read again, even when it changes.
	writeFile(t, dir, "myagent.toml", "garbage")
	if s.Get("myagent") != a {
		t.Error("a second Get decoded the file again")
	}
	if s.Get("broken") != nil || s.Get("broken") != nil {
		t.Error("a broken manifest was loaded")
	}
	if len(heard) != 1 || heard[0] != filepath.Join(dir, "broken.toml") {
		t.Errorf("problems heard = %v, want broken.toml once", heard)
	}
	if ps := s.Problems(); len(ps) != 1 {
		t.Errorf("Problems() = %v", ps)
	}
}

// TestBrokenUserFileFallsBack: a user file that fails to parse is skipped,
// so the bundled manifest of its stem stands; a closed dir has none.
func TestBrokenUserFileFallsBack(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "claude.toml", "min_engine_version = \"0.1\"\n[identity]\nprocess_names = [\"x\"]\n[capture]\nvisible = [\"busy\"]\n")
	var heard []Problem
	s, err := Load(LoadOptions{UserDir: dir, OnProblem: func(p Problem) { heard = append(heard, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Get("claude"); a == nil || !a.Bundled {
		t.Errorf("Get(claude) = %+v, want the bundled one", a)
	}
	if len(heard) != 1 || !strings.Contains(heard[0].Err.Error(), filepath.Join(dir, "claude.toml")+": capture.visible: state \"busy\"") {
		t.Errorf("problems = %v", heard)
	}
	s, err = Load(LoadOptions{ManifestDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.Get("claude") != nil || s.Get("codex") != nil || len(s.All()) != 0 {
		t.Error("a closed manifest dir fell back to a bundled manifest")
	}
}

func TestGetRejectsPaths(t *testing.T) {
	s, _ := Load(LoadOptions{UserDir: t.TempDir()})
	for _, n := range []string{"../etc/passwd", "", "claude.toml", "nosuch"} {
		if s.Get(n) != nil {
			t.Errorf("Get(%q) found an agent", n)
		}
	}
}

// TestOverrideBeforeAndAfterUse: a config override applies whether the
// agent was built before it or after.
func TestOverrideBeforeAndAfterUse(t *testing.T) {
	s, _ := Load(LoadOptions{})
	before := s.Get("codex")
	s.Override("codex", true, []string{"codex-wrapper"})
	s.Override("claude", true, []string{"claude-wrapper"})
	if !before.MatchesProcess("codex-wrapper") || !s.Get("claude").MatchesProcess("claude-wrapper") {
		t.Error("an extra process name was lost")
	}
	s.Override("codex", false, nil)
	if s.Get("codex") != nil {
		t.Error("a disabled agent is still served")
	}
	for _, a := range s.All() {
		if a.Name == "codex" {
			t.Error("All lists a disabled agent")
		}
	}
}

// TestRegexCompiledOnFirstUse: building a manifest compiles none of its
// patterns; evaluating compiles what the rules reach.
func TestRegexCompiledOnFirstUse(t *testing.T) {
	s, _ := Load(LoadOptions{})
	a := s.Get("claude")
	var leaves []*Regex
	var walk func(*Match)
	walk = func(m *Match) {
		if m.Re != nil {
			leaves = append(leaves, m.Re)
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	for _, r := range a.Rules {
		walk(r.Match)
	}
	if len(leaves) == 0 {
		t.Fatal("claude has no regex rules")
	}
	for _, re := range leaves {
		if re.re != nil {
			t.Fatalf("%s compiled before any use", re)
		}
	}
	a.Evaluate(screen.Screen{Raw: "❯ 1. Yes\n", Height: 10})
	compiled := 0
	for _, re := range leaves {
		if re.re != nil {
			compiled++
		}
	}
	// all and any stop early, so some leaves may stay uncompiled.
	if compiled == 0 {
		t.Error("Evaluate compiled no pattern")
	}
}

// TestUserRegexCheckedAtParse: a user manifest's bad pattern fails its
// parse, naming the key, though nothing is compiled until used.
func TestUserRegexCheckedAtParse(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "mine.toml", minimal+"[[rules]]\nstate = \"idle\"\nregion = \"visible\"\nmatch = { regex = '(' }\n")
	var heard []Problem
	s, _ := Load(LoadOptions{UserDir: dir, OnProblem: func(p Problem) { heard = append(heard, p) }})
	if s.Get("mine") != nil || len(heard) != 1 || !strings.Contains(heard[0].Err.Error(), "mine.toml: rules[0]: match.regex: bad regex: error parsing regexp: missing closing )") {
		t.Errorf("problems = %v", heard)
	}
}

// Claims is Identifies for names that are no runtime's: the walk may stop
// below such a process. A runtime is never claimed (its title decides), nor
// a disabled agent's name, and a config's extra name is.
func TestClaims(t *testing.T) {
	s, _ := Load(LoadOptions{})
	for _, c := range []struct {
		names []string
		want  bool
	}{
		{[]string{"claude"}, true},
		{[]string{"node", "codex"}, true},
		{[]string{"node"}, false},
		{[]string{"bash"}, false},
		{[]string{"codex-wrapper"}, false},
		{nil, false},
	} {
		if got := s.Claims(c.names); got != c.want {
			t.Errorf("Claims(%q) = %v, want %v", c.names, got, c.want)
		}
		for _, n := range c.names {
			for _, a := range s.All() {
				if a.Identifies(n, "") && !IsRuntime(n) && !s.Claims([]string{n}) {
					t.Errorf("%s identifies %q whatever the title, and Claims does not", a.Name, n)
				}
			}
		}
	}
	s.Override("codex", true, []string{"codex-wrapper"})
	if !s.Claims([]string{"codex-wrapper"}) {
		t.Error("an extra process name is not claimed")
	}
	s.Override("codex", false, nil)
	if s.Claims([]string{"codex"}) {
		t.Error("a disabled agent's name is claimed")
	}
	var none *Set
	if none.Claims([]string{"claude"}) {
		t.Error("a nil set claims")
	}
}
