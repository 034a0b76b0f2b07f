package act

import (
	"strings"
	"testing"
)

// answer is a keys action: the option's digit, or pi's Downs then Enter.
// Qwen's digit stands alone: Down and Enter in one send-keys picked option 1
// on the real agent.
func TestAnswerIsKeysWithTheOption(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	a := s.Get("answer")
	if a == nil || a.Kind != KindKeys || !TakesArg(a) {
		t.Fatalf("bundled answer: %+v", a)
	}
	for _, tc := range []struct{ agent, arg, want string }{
		{"claude", "2", "2"}, {"codex", "1", "1"}, {"gemini", "3", "3"}, {"opencode", "9", "9"},
		{"qwen", "2", "2"},
		{"pi", "1", "Enter"}, {"pi", "3", "Down Down Enter"},
	} {
		if got := strings.Join(ExpandArg(a.Keys[tc.agent], tc.arg), " "); got != tc.want {
			t.Errorf("%s option %s: %q, want %q", tc.agent, tc.arg, got, tc.want)
		}
	}
	if TakesArg(s.Get("approve")) {
		t.Error("approve takes an arg")
	}
}

func TestCheckOption(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"1"}, true}, {[]string{"9"}, true}, {nil, false}, {[]string{"0"}, false},
		{[]string{"10"}, false}, {[]string{"a"}, false}, {[]string{"1", "2"}, false}, {[]string{""}, false},
	} {
		if err := CheckOption(tc.args); (err == nil) != tc.ok {
			t.Errorf("CheckOption(%q) = %v", tc.args, err)
		}
	}
}

func TestArgPlaceholderRules(t *testing.T) {
	for _, tc := range []struct {
		item string
		ok   bool
	}{
		{"{arg}", true}, {"{arg-1}*Down", true}, {"{arg-1}*Tab", true},
		{"{arg-1}*", false}, {"{arg-1}*Downward", false}, {"{args}", false}, {"{arg+1}", false},
	} {
		body := "min_engine_version = \"0.1\"\nname = \"pick\"\nlabel = \"x\"\nkind = \"keys\"\n[keys]\nclaude = [" + `"` + tc.item + `"` + "]\n"
		_, err := Parse("pick", "pick.toml", []byte(body))
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.item, err)
		}
	}
}
