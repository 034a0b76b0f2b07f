package daemon

import (
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/record"
)

func TestRenderName(t *testing.T) {
	v := map[string]string{"agent": "claude", "state": "working", "detail": "", "repo": "tma", "branch": "main"}
	for _, c := range []struct{ format, want string }{
		{"{repo}:{state}", "tma:working"},
		{"{agent} {state}{detail}", "claude working"},
		{"{state} {x}", "working {x}"},    // not a token: literal
		{"[{detail}] {agent}", "[claude"}, // an empty token takes the text after it
		{"{agent}/{detail}", "claude"},    // ...or, ending the format, the text before it
		{"{branch}", "main"},
	} {
		if got := RenderName(c.format, v); got != c.want {
			t.Errorf("%q: %q, want %q", c.format, got, c.want)
		}
	}
	v["repo"] = ""
	if got := RenderName("{repo}:{state}", v); got != "working" {
		t.Errorf("no repo: %q", got)
	}
	v["agent"] = "a\x1bb" + strings.Repeat("x", 100)
	if got := RenderName("{agent}", v); len([]rune(got)) != MaxWindowName || strings.ContainsRune(got, 0x1b) {
		t.Errorf("capped and clean: %q", got)
	}
}

func win(session string, index int, state string, since int64) *record.Row {
	r := &record.Row{TmuxSession: session, Window: index, Row: record.AgentRow{Agent: "claude", State: state}}
	r.Row.Since = &since
	return r
}

// A window's name comes from its most urgent row: blocked before working.
func TestWindowNames(t *testing.T) {
	got := WindowNames("{agent}:{state}", []*record.Row{win("s", 1, "working", 5), win("s", 1, "blocked", 9), win("s", 2, "idle", 1)})
	if got[WindowKey{"s", 1}] != "claude:blocked" || got[WindowKey{"s", 2}] != "claude:idle" || len(got) != 2 {
		t.Fatalf("%v", got)
	}
}

func TestPlanNames(t *testing.T) {
	k := WindowKey{"s", 1}
	fresh := Window{ID: "@1", Key: k, Name: "zsh", AutoRename: "on"}
	lines := PlanNames([]Window{fresh}, map[WindowKey]string{k: "claude:working"})
	if len(lines) != 1 || !strings.Contains(lines[0], "set -w -t '@1' @tma_window_name_orig 'zsh'") ||
		!strings.Contains(lines[0], "@tma_window_autorename_orig on") || !strings.Contains(lines[0], "rename-window -t '@1' 'claude:working'") ||
		!strings.Contains(lines[0], "@tma_window_name_last 'claude:working'") {
		t.Fatalf("first rename: %q", lines)
	}
	ours := Window{ID: "@1", Key: k, Name: "claude:working", Last: "claude:working", HasOrig: true, Orig: "zsh", AutoOrig: "on"}
	if lines := PlanNames([]Window{ours}, map[WindowKey]string{k: "claude:working"}); len(lines) != 0 {
		t.Fatalf("unchanged: %q", lines)
	}
	lines = PlanNames([]Window{ours}, map[WindowKey]string{k: "claude:blocked"})
	if len(lines) != 1 || strings.Contains(lines[0], OptNameOrig) || !strings.Contains(lines[0], "rename-window -t '@1' 'claude:blocked'") {
		t.Fatalf("a later rename saves nothing again: %q", lines)
	}
	user := ours
	user.Name = "mine"
	if lines := PlanNames([]Window{user}, map[WindowKey]string{k: "claude:blocked"}); len(lines) != 0 {
		t.Fatalf("the user's name was fought: %q", lines)
	}
	lines = PlanNames([]Window{ours}, map[WindowKey]string{})
	if len(lines) != 1 || !strings.Contains(lines[0], "rename-window -t '@1' 'zsh'") || !strings.Contains(lines[0], "automatic-rename on") ||
		!strings.Contains(lines[0], "set -wu -t '@1' @tma_window_name_orig") || !strings.Contains(lines[0], "@tma_window_name_last") {
		t.Fatalf("restore: %q", lines)
	}
	if lines := PlanNames([]Window{user}, nil); len(lines) != 1 || strings.Contains(lines[0], "rename-window") || strings.Contains(lines[0], "automatic-rename") {
		t.Fatalf("a user-renamed window keeps its name on restore: %q", lines)
	}
	if lines := PlanNames([]Window{fresh}, nil); len(lines) != 0 {
		t.Fatalf("a window tma never renamed: %q", lines)
	}
}

func TestParseWindows(t *testing.T) {
	ws := ParseWindows("@3\x1fs\x1f2\x1fon\x1flast\x1f1\x1foff\x1forig\x1fa name\n@4\\037t\\0370\\037off\\037\\0370\\037\\037\\037x\n")
	if len(ws) != 2 || ws[0].ID != "@3" || ws[0].Key != (WindowKey{"s", 2}) || ws[0].Name != "a name" || !ws[0].HasOrig || ws[0].AutoOrig != "off" ||
		ws[1].Key != (WindowKey{"t", 0}) || ws[1].HasOrig || ws[1].Name != "x" {
		t.Fatalf("%+v", ws)
	}
}
