package manifest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// recordedEvent is one line of a hook recording the lab took from a real
// agent (fixtures/<agent>/hooks/<file>.jsonl).
type recordedEvent struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// recordedEvents reads a recording; a line that is not JSON fails the
// test, one without an event (the lab's markers) is left out.
func recordedEvents(t *testing.T, agent, file string) []recordedEvent {
	t.Helper()
	f, err := os.Open(filepath.Join(fixturesRoot, agent, "hooks", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recordedEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var ln recordedEvent
		if err := json.Unmarshal(sc.Bytes(), &ln); err != nil {
			t.Fatalf("%s/%s: %v", agent, file, err)
		}
		if ln.Event != "" {
			out = append(out, ln)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
