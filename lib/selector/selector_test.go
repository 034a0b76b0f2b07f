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
		{Flags{State: p("idle")}, "done idle"},
		{Flags{State: p("done")}, "done"},
		{Flags{State: p("blocked,working")}, "blocked working"},
		{Flags{Session: p("s1")}, "blocked done"},
		{Flags{Repo: p("app"), State: p("blocked")}, "blocked"},
		{Flags{Repo: p("App")}, ""},
		{Flags{Agent: p("claude"), Session: p("s2")}, "idle"},
		{Flags{Branch: p("main")}, ""},
		// An empty value selects exactly: the panes with no label, never all.
		{Flags{Repo: p("")}, "idle"},
		{Flags{Branch: p("")}, "blocked done idle working"},
		{Flags{Session: p("")}, ""},
		{Flags{Agent: p("")}, ""},
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
	_, err := Flags{State: p("idle,bogus")}.Compile()
	if err == nil || !strings.Contains(err.Error(), `"bogus"`) || !strings.Contains(err.Error(), "idle, working, blocked, unknown, done") {
		t.Fatalf("err = %v", err)
	}
}

func p(s string) *string { return &s }

func TestEmptyValues(t *testing.T) {
	if _, err := (Flags{State: p("")}).Compile(); err == nil {
		t.Errorf("--state \"\" compiled")
	}
	if got := (Flags{Agent: p("x"), Repo: p("")}).Empty(); got != "--repo" {
		t.Errorf("Empty = %q", got)
	}
	if got := (Flags{Agent: p("x")}).Empty(); got != "" {
		t.Errorf("Empty = %q", got)
	}
	if !(Flags{Repo: p("")}).Set() || (Flags{}).Set() {
		t.Errorf("Set")
	}
}
