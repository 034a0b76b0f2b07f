package manifest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
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
	f, err := os.Open(filepath.Join(fixturesRoot, "pi", "hooks", "input.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	starts, ends := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var ln struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ln); err != nil {
			t.Fatalf("input.jsonl: %v", err)
		}
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
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// The scenario asks twice: answered once, cancelled once.
	if starts != 2 || ends != 2 {
		t.Errorf("recorded %d starts and %d ends of questionnaire, want 2 of each", starts, ends)
	}
}
