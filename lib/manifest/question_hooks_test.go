package manifest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRecordedQuestionHooks maps the hook events the lab recorded from the
// real Codex and Gemini CLI (fixtures/<agent>/hooks/scenario.jsonl) and
// holds the detail of every claim around a question tool: the events that
// come before the question is drawn say blocked/question, never permission
// (approve and deny gate on permission), while a shell prompt's say
// blocked/permission. The replay test checks the states; this the details.
func TestRecordedQuestionHooks(t *testing.T) {
	s, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		agent, tool string
		asks        []string // events that open the question
	}{
		{"codex", "request_user_input", []string{"PreToolUse"}},
		{"gemini", "ask_user", []string{"BeforeTool", "Notification"}},
	} {
		a := s.Get(tc.agent)
		questions, permissions := 0, 0
		for _, ln := range recordedEvents(t, tc.agent, "scenario.jsonl") {
			m := a.MapEvent(ln.Event, string(ln.Payload))
			var p struct {
				Tool    string `json:"tool_name"`
				Details struct {
					Type string `json:"type"`
				} `json:"details"`
			}
			json.Unmarshal(ln.Payload, &p)
			asks := false
			for _, e := range tc.asks {
				asks = asks || e == ln.Event
			}
			switch {
			case asks && (p.Tool == tc.tool || p.Details.Type == tc.tool):
				questions++
				if m == nil || m.Claim.State != "blocked" || m.Claim.Detail != "question" {
					t.Errorf("%s %s of %s: mapped to %+v, want blocked/question", tc.agent, ln.Event, tc.tool, m)
				}
			case m != nil && m.Claim.State == "blocked":
				permissions++
				if m.Claim.Detail != "permission" || strings.Contains(string(ln.Payload), tc.tool) {
					t.Errorf("%s %s: mapped to %+v, want blocked/permission and no %s in it", tc.agent, ln.Event, m.Claim, tc.tool)
				}
			}
		}
		if questions == 0 || permissions == 0 {
			t.Errorf("%s: %d question events and %d permission events recorded, want some of each", tc.agent, questions, permissions)
		}
		t.Logf("%s: %d question events, %d permission events", tc.agent, questions, permissions)
	}
}
