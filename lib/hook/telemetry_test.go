package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/telemetry"
	"github.com/tmaproject/tma/lib/testkit"
)

func bundled(t *testing.T, name string) *manifest.Agent {
	t.Helper()
	all, err := manifest.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no bundled %s", name)
	return nil
}

// sets parses a plan line's commands into name -> value ("" for an unset)
// and returns the guard of the if-shell that wraps them.
func sets(t *testing.T, line string) (guard string, out map[string]string) {
	t.Helper()
	cmds, err := testkit.TmuxCommands(line)
	if err != nil || len(cmds) == 0 || cmds[0][0] != "if-shell" {
		t.Fatalf("not one if-shell: %q (%v)", line, err)
	}
	guard = cmds[0][4]
	body, err := testkit.TmuxCommands(cmds[0][5])
	if err != nil {
		t.Fatal(err)
	}
	out = map[string]string{}
	for _, c := range body {
		switch {
		case c[0] == "set" && c[1] == "-pu":
			out[c[4]] = ""
		case c[0] == "set":
			out[c[4]] = c[5]
		}
	}
	return guard, out
}

// claimOf is a line without the handover write a claim's line opens with.
func claimOf(l string) string {
	if h, rest, ok := strings.Cut(l, " ; if-shell "); ok && strings.Contains(h, "#{!=:#{@agent_name},") {
		return "if-shell " + rest
	}
	return l
}

func TestContextPlan(t *testing.T) {
	payload, err := os.ReadFile(filepath.Join("..", "telemetry", "testdata", "claude-statusline-4.json"))
	if err != nil {
		t.Fatal(err)
	}
	ev := Event{Agent: bundled(t, "claude"), Name: telemetry.ContextKind, Payload: ParsePayload(string(payload)), Pane: "%3", NowMS: 1_800_000_000_000}
	pl, err := Build(ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Lines) != 1 || pl.NeedPanes {
		t.Fatalf("a context event is one blind line: %+v", pl)
	}
	guard, got := sets(t, pl.Lines[0])
	want := map[string]string{"@agent_context_pct": "2", "@agent_context_at": "1800000000000", "@agent_tokens": "24593",
		"@agent_tokens_at": "1800000000000", "@agent_model": "claude-opus-4-8[1m]", "@agent_cost_usd": "0.372755"}
	if len(got) != len(want) {
		t.Errorf("sets %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, part := range []string{"#{==:#{@agent_name},claude}", "#{==:#{@agent_session},3a09097f-8266-44f4-a140-f1f29efa7213}", "#{e|<:#{@agent_context_at},1800000000000}", "@agent_ignore"} {
		if !strings.Contains(guard, part) {
			t.Errorf("guard lacks %s: %s", part, guard)
		}
	}
	if _, ok := got["@agent_state"]; ok {
		t.Errorf("a context event claims nothing: %s", pl.Lines[0])
	}

	// An agent with no context channel, or a payload reporting nothing
	// yet, plans nothing and says why.
	for _, c := range []struct {
		agent, payload, why string
	}{
		{"gemini", string(payload), "no [telemetry.context]"},
		{"codex", string(payload), "file-tail, not event"},
		{"claude", `{"model":null,"context_window":{"used_percentage":null,"current_usage":null}}`, "reports nothing"},
		{"claude", `not json`, ClaudeFormat},
	} {
		ev := Event{Agent: bundled(t, c.agent), Name: telemetry.ContextKind, Payload: ParsePayload(c.payload), Pane: "%3", NowMS: 1}
		pl, err := Build(ev, nil)
		if err != nil || len(pl.Lines) != 0 || !strings.Contains(pl.Why, c.why) {
			t.Errorf("%s %q: %+v %v", c.agent, c.payload, pl, err)
		}
	}
}

// ClaudeFormat is named in the error a malformed statusline gives.
const ClaudeFormat = telemetry.ClaudeStatusline

// TestEventCarriesGauge: pi's agent_settled carries its usage; a claude
// hook payload never adds a reading.
func TestEventCarriesGauge(t *testing.T) {
	pi := `{"hook_event_name":"agent_settled","session_id":"s-1","context":{"tokens":2220,"contextWindow":128000,"percent":1.73}}`
	pl, err := Build(Event{Agent: bundled(t, "pi"), Name: "agent_settled", Payload: ParsePayload(pi), Pane: "%1", NowMS: 5}, []Pane{{ID: "%1", Name: "pi", Session: "s-1"}})
	if err != nil {
		t.Fatal(err)
	}
	// An idle claim that is no turn's end first retires a block's mark
	// (guarded: only where the pane is blocked), then claims, then reads.
	if n := len(pl.Lines); n != 3 {
		t.Fatalf("want the mark's retirement, the claim and the reading, got %d lines", n)
	}
	if _, got := sets(t, pl.Lines[2]); got["@agent_tokens"] != "2220" || got["@agent_context_pct"] != "2" {
		t.Errorf("reading: %v", got)
	}
	claude := `{"session_id":"s-1","tool_name":"Bash","tool_input":{"command":"echo context_window used_percentage"}}`
	pl, err = Build(Event{Agent: bundled(t, "claude"), Name: "PreToolUse", Payload: ParsePayload(claude), Pane: "%1", NowMS: 5}, []Pane{{ID: "%1", Name: "claude", Session: "s-1"}})
	if err != nil || len(pl.Lines) != 1 {
		t.Fatalf("claude PreToolUse: %+v %v", pl, err)
	}
	// A reading the caller took (a rollout) rides any mapped event.
	r := telemetry.Reading{AtMS: 3}
	n := int64(13460)
	r.Tokens = &n
	pl, err = Build(Event{Agent: bundled(t, "codex"), Name: "Stop", Payload: ParsePayload(`{}`), Pane: "%1", NowMS: 5, Telemetry: &r}, []Pane{{ID: "%1", Name: "codex"}})
	if err != nil || len(pl.Lines) != 3 {
		t.Fatalf("codex Stop with a reading: %+v %v", pl, err)
	}
	if g, got := sets(t, pl.Lines[2]); got["@agent_tokens_at"] != "3" || !strings.Contains(g, "#{e|<:#{@agent_tokens_at},3}") {
		t.Errorf("the reading is dated by its record: %v %s", got, g)
	}
}

// TestOpenCodeLane: a permission event stamps OpenCode's own request id
// and the plugin's endpoint; the next claim that is not blocked drops it.
func TestOpenCodeLane(t *testing.T) {
	oc := bundled(t, "opencode")
	panes := []Pane{{ID: "%4", Name: "opencode", Session: "ses_1"}}
	build := func(event, payload string) map[string]string {
		t.Helper()
		pl, err := Build(Event{Agent: oc, Name: event, Payload: ParsePayload(payload), Pane: "%4", NowMS: 9}, panes)
		if err != nil {
			t.Fatal(err)
		}
		all := map[string]string{}
		for _, l := range pl.Lines {
			_, got := sets(t, strings.SplitN(claimOf(l), " ; set -wF", 2)[0])
			for k, v := range got {
				all[k] = v
			}
		}
		return all
	}
	// The permission.asked payload as the lab's hook log has it, with the
	// endpoint a plugin on a listening server adds.
	asked := `{"hook_event_name":"permission-required","source":"permission.asked","session_id":"ses_1","tma_api_endpoint":"http://127.0.0.1:4096","properties":{"id":"per_228b0b88a001qbkNARKx39XPCy","sessionID":"ses_1","permission":"bash","patterns":["touch probe.txt"]}}`
	got := build("permission-required", asked)
	if got["@agent_permission_request"] != "per_228b0b88a001qbkNARKx39XPCy" || got["@agent_api_endpoint"] != "http://127.0.0.1:4096" || got["@agent_state"] != "blocked" {
		t.Fatalf("permission.asked: %v", got)
	}
	if v, ok := got["@agent_question_request"]; !ok || v != "" {
		t.Errorf("a permission prompt unsets a question id: %v", got)
	}
	got = build("permission-replied", `{"hook_event_name":"permission-replied","source":"permission.replied","session_id":"ses_1","properties":{"sessionID":"ses_1","requestID":"per_228b0b88a001qbkNARKx39XPCy","reply":"once"}}`)
	if v, ok := got["@agent_permission_request"]; !ok || v != "" {
		t.Errorf("permission.replied keeps the id: %v", got)
	}
	got = build("question-asked", `{"source":"question.asked","session_id":"ses_1","properties":{"id":"que_1","sessionID":"ses_1"}}`)
	if got["@agent_question_request"] != "que_1" || got["@agent_detail"] != "question" {
		t.Errorf("question.asked: %v", got)
	}
	// Another agent's blocked claim is what it was: no API lane options.
	pl, _ := Build(Event{Agent: bundled(t, "codex"), Name: "PermissionRequest", Payload: ParsePayload(asked), Pane: "%4", NowMS: 9}, []Pane{{ID: "%4", Name: "codex"}})
	if strings.Contains(strings.Join(pl.Lines, "\n"), "@agent_api_endpoint") || strings.Contains(strings.Join(pl.Lines, "\n"), "per_228") {
		t.Errorf("codex got the OpenCode lane: %v", pl.Lines)
	}
}

func TestLoopbackURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4096":       "http://127.0.0.1:4096",
		"http://localhost:4096/":      "http://localhost:4096",
		"http://[::1]:4096":           "http://[::1]:4096",
		"http://localhost":            "",
		"https://127.0.0.1:4096":      "",
		"http://10.0.0.1:4096":        "",
		"http://evil.example:4096":    "",
		"http://u:p@127.0.0.1:4096":   "",
		"http://127.0.0.1:4096/?x=1":  "",
		"http://127.0.0.1:4096/#frag": "",
		"":                            "",
	} {
		if got := LoopbackURL(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
