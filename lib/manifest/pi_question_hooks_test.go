package manifest

import (
	"encoding/json"
	"testing"
)

// TestPiQuestionnaireHooks maps the events the real pi fired around
// questionnaire.ts's tool in the lab's input scenario
// (fixtures/pi/hooks/input.jsonl, pi's own field names): its start is the
// question (blocked/question, as question.ts's), its end the answer or the
// Esc (working again), and the tma extension's tool_name spelling of the
// same start maps alike.
func TestPiQuestionnaireHooks(t *testing.T) {
	s, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := s.Get("pi")
	starts, ends := 0, 0
	for _, ln := range recordedEvents(t, "pi", "input.jsonl") {
		var p struct {
			Tool string `json:"toolName"`
		}
		json.Unmarshal(ln.Payload, &p)
		if p.Tool != "questionnaire" {
			continue
		}
		m := a.MapEvent(ln.Event, string(ln.Payload))
		switch ln.Event {
		case "tool_execution_start":
			starts++
			if m == nil || m.Claim.State != "blocked" || m.Claim.Detail != "question" {
				t.Errorf("questionnaire's %s mapped to %+v, want blocked/question", ln.Event, m)
			}
			forwarded := `{"tool_name":"questionnaire"}`
			if m := a.MapEvent(ln.Event, forwarded); m == nil || m.Claim.State != "blocked" || m.Claim.Detail != "question" {
				t.Errorf("%s %s mapped to %+v, want blocked/question", ln.Event, forwarded, m)
			}
		case "tool_execution_end":
			ends++
			if m == nil || m.Claim.State != "working" {
				t.Errorf("questionnaire's %s mapped to %+v, want working", ln.Event, m)
			}
		}
	}
	// The scenario asks twice: answered once, cancelled once.
	if starts != 2 || ends != 2 {
		t.Errorf("recorded %d starts and %d ends of questionnaire, want 2 of each", starts, ends)
	}
}
