package selector

import (
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/record"
)

func row(sess, agent, state string, attn bool, repo string) *record.Row {
	r := &record.Row{TmuxSession: sess, Row: record.AgentRow{Agent: agent, State: state, Attention: attn, Done: state == "idle" && attn}}
	if repo != "" {
		r.Row.Repo = &repo
	}
	return r
}

func TestMatch(t *testing.T) {
	rows := map[string]*record.Row{
		"blocked": row("s1", "claude", "blocked", true, "app"),
		"done":    row("s1", "codex", "idle", true, "app"),
		"idle":    row("s2", "claude", "idle", false, ""),
		"working": row("s2", "pi", "working", false, "lib"),
	}
	cases := []struct {
		f    Flags
		want string
	}{
		{Flags{}, "blocked done idle working"},
		{Flags{State: "idle"}, "done idle"},
		{Flags{State: "done"}, "done"},
		{Flags{State: "blocked,working"}, "blocked working"},
		{Flags{Session: "s1"}, "blocked done"},
		{Flags{Repo: "app", State: "blocked"}, "blocked"},
		{Flags{Repo: "App"}, ""},
		{Flags{Agent: "claude", Session: "s2"}, "idle"},
		{Flags{Branch: "main"}, ""},
	}
	for _, c := range cases {
		s, err := c.f.Compile()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range []string{"blocked", "done", "idle", "working"} {
			if s.Match(rows[k]) {
				got = append(got, k)
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%+v: got %q want %q", c.f, g, c.want)
		}
	}
}

func TestBadState(t *testing.T) {
	_, err := Flags{State: "idle,bogus"}.Compile()
	if err == nil || !strings.Contains(err.Error(), `"bogus"`) || !strings.Contains(err.Error(), "idle, working, blocked, unknown, done") {
		t.Fatalf("err = %v", err)
	}
}
