package wait

import (
	"testing"
	"time"
)

func TestParseTimeout(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"", 0, false}, {"90", 90 * time.Second, false}, {"1.5", 1500 * time.Millisecond, false},
		{"5m", 5 * time.Minute, false}, {"0", 0, true}, {"-3", 0, true}, {"soon", 0, true}, {"0s", 0, true},
	} {
		got, err := ParseTimeout(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseTimeout(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		name      string
		pane      string
		any, all  bool
		count     int
		agent     string
		want, bad string
	}{
		{"pane", "%3", false, false, 0, "", TargetPane, ""},
		{"any", "", true, false, 0, "claude", TargetAny, ""},
		{"all", "", false, true, 0, "", TargetAll, ""},
		{"count", "", false, false, 2, "", TargetCount, ""},
		{"agent alone", "", false, false, 0, "codex", TargetAgent, ""},
		{"two targets", "%3", true, false, 0, "", "", "--pane, --any, --all and --count exclude each other"},
		{"negative count", "", false, false, -1, "", "", "--count must be at least 1"},
		{"none", "", false, false, 0, "", "", "name a target: --pane, --agent, --any, --all or --count"},
	} {
		s := Spec{Count: c.count, Agent: c.agent}
		err := s.Choose(c.pane, c.any, c.all)
		switch {
		case c.bad != "":
			if err == nil || err.Error() != c.bad {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.bad)
			}
		case err != nil || s.Target != c.want || s.Pane != c.pane:
			t.Errorf("%s: target %q pane %q err %v, want %q", c.name, s.Target, s.Pane, err, c.want)
		}
	}
}
