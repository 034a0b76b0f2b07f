package act

import (
	"strings"
	"testing"
)

// TestFanOutRefusal: --all never carries an action that can answer a
// prompt, bundled or a user's, however it is named; declines and actions
// that never reach a prompt keep it, unless --force lifts a gate that kept
// them off blocked panes.
func TestFanOutRefusal(t *testing.T) {
	as, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	refusedForced := map[string]bool{}
	for _, a := range as {
		refused[a.Name] = FanOutRefusal(a, false) != ""
		refusedForced[a.Name] = FanOutRefusal(a, true) != ""
	}
	for name, want := range map[string][2]bool{
		"approve":   {true, true},
		"answer":    {true, true},
		"deny":      {false, false},
		"dismiss":   {false, false},
		"interrupt": {false, false},
		"steer":     {false, true},
		"steer_now": {false, true},
		"compact":   {false, true},
	} {
		if refused[name] != want[0] || refusedForced[name] != want[1] {
			t.Errorf("%s: refused %v, with --force %v; want %v", name, refused[name], refusedForced[name], want)
		}
	}

	user := func(src string) *Action {
		return mustParse(t, "mine", "min_engine_version = \"0.1\"\nname = \"mine\"\nlabel = \"Mine\"\n"+src)
	}
	for _, c := range []struct {
		what    string
		a       *Action
		refused bool
	}{
		{"an approve under another name", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\nclaude = [\"2\"]\n"), true},
		{"keys with no state gate", user("kind = \"keys\"\n[keys]\nclaude = [\"y\"]\n"), true},
		{"Escape with no state gate", user("kind = \"keys\"\n[keys]\nclaude = [\"Escape\"]\n"), false},
		{"Escape on blocked", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\nclaude = [\"Escape\"]\ncodex = [\"Escape\"]\n"), false},
		{"Ctrl+C on blocked", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\ncopilot = [\"C-c\"]\n"), false},
		{"Ctrl+C, then y", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\ncopilot = [\"C-c\", \"y\"]\n"), true},
		{"Escape, then Enter", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\nclaude = [\"Escape\", \"Enter\"]\n"), true},
		{"Escape with an allow over the lane", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\nclaude = [\"Escape\"]\n[hook]\nclaude = { reply = \"allow\" }\n"), true},
		{"Escape with an api once", user("kind = \"keys\"\nwhen = { state = [\"blocked\"] }\n[keys]\nopencode = [\"Escape\"]\n[api]\nopencode = { op = \"permission-reply\", reply = \"once\" }\n"), true},
		{"a text action on any state", user("kind = \"text\"\n[text]\nclaude = { suffix = [\"Enter\"] }\n"), true},
		{"an exec action on any state", user("kind = \"exec\"\ncommand = 'true'\n"), false},
		{"an exec action on blocked", user("kind = \"exec\"\nwhen = { state = [\"blocked\", \"idle\"] }\ncommand = 'true'\n"), true},
	} {
		why := FanOutRefusal(c.a, false)
		if (why != "") != c.refused {
			t.Errorf("%s: refusal %q, want refused %v", c.what, why, c.refused)
		}
		if why != "" && !strings.Contains(why, "one prompt at a time") {
			t.Errorf("%s: the reason %q does not say why", c.what, why)
		}
	}
}
