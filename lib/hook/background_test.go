package hook

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// runningTasks decodes what the background matcher reads by regex.
func runningTasks(t *testing.T, payload string) int {
	t.Helper()
	var p struct {
		Tasks []struct {
			Status string `json:"status"`
		} `json:"background_tasks"`
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		t.Fatalf("%v: %s", err, payload)
	}
	n := 0
	for _, task := range p.Tasks {
		if task.Status == "running" {
			n++
		}
	}
	return n
}

// checkStop maps one claude Stop payload and plans it blind: with a
// running background task it is working/background, no turn end, and
// the plan raises no attention; otherwise idle with the turn end.
func checkStop(t *testing.T, payload string) {
	t.Helper()
	a := bundled(t, "claude")
	bg := runningTasks(t, payload) > 0
	m := a.MapEvent("Stop", payload)
	if m == nil {
		t.Fatalf("Stop not mapped: %s", payload)
	}
	got := m.Claim.State + "/" + m.Claim.Detail
	if want := map[bool]string{true: "working/background", false: "idle/"}[bg]; got != want || m.TurnEnd == bg {
		t.Fatalf("Stop with running=%v: %s turn_end=%v\n%s", bg, got, m.TurnEnd, payload)
	}
	pl, err := Build(Event{Agent: a, Name: "Stop", Payload: ParsePayload(payload), Pane: "%1", NowMS: 1_800_000_000_000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(pl.Lines, "\n")
	if raised := strings.Contains(all, "@agent_attention"); raised == bg {
		t.Fatalf("running=%v: attention in the plan %v:\n%s", bg, raised, all)
	}
	if bg && !regexp.MustCompile(`@agent_detail ['\\]*background'`).MatchString(all) {
		t.Fatalf("no background detail in the plan:\n%s", all)
	}
}

// The Stop payloads Claude Code 2.1.332 and 2.1.197 sent in the lab around
// background shells and subagents (fixtures/claude/hooks/background.jsonl,
// fixtures/claude/2.1.197/hooks/), and the main scenario's (every one with
// background_tasks empty).
func TestClaudeStopBackgroundTasksCaptured(t *testing.T) {
	seen := map[bool]int{}
	for _, rec := range []string{"background.jsonl", "scenario.jsonl", "2.1.197/hooks/background.jsonl", "2.1.197/hooks/scenario.jsonl"} {
		if !strings.Contains(rec, "/") {
			rec = "hooks/" + rec
		}
		f, err := os.Open("../../fixtures/claude/" + rec)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			var ln struct {
				Event   string          `json:"event"`
				Payload json.RawMessage `json:"payload"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ln); err != nil {
				t.Fatalf("%s: %v", rec, err)
			}
			if ln.Event != "Stop" {
				continue
			}
			checkStop(t, string(ln.Payload))
			seen[runningTasks(t, string(ln.Payload)) > 0]++
		}
		f.Close()
	}
	if seen[true] < 3 || seen[false] < 3 {
		t.Fatalf("the recordings lack Stops of both kinds: %v", seen)
	}
}

// Payloads the lab did not produce, in the captured shape: what a
// conversation, a task's own text or another array may hold must not
// read as running work, and text with ] or quotes in a running task must
// not hide it.
func TestClaudeStopBackgroundTasksShapes(t *testing.T) {
	head := `{"session_id":"s-1","hook_event_name":"Stop","stop_hook_active":false,`
	for _, body := range []string{
		`"last_assistant_message":"ok","background_tasks":[],"session_crons":[]}`,
		`"last_assistant_message":"ok"}`,
		`"last_assistant_message":"it said \"background_tasks\":[{\"status\":\"running\"}]","background_tasks":[]}`,
		`"last_assistant_message":"ok","background_tasks":[],"session_crons":[{"id":"c1","status":"running"}]}`,
		`"last_assistant_message":"ok","background_tasks":[{"id":"b1","type":"shell","status":"completed","description":"say \"status\": \"running\"","command":"echo '\"status\":\"running\"'"}]}`,
		`"background_tasks":[{"id":"b1","type":"shell","status":"running","description":"test","command":"[ -f x ] && echo ]"}],"session_crons":[]}`,
		`"background_tasks":[{"id":"b1","type":"shell","command":"[ -f x ] && jq '.[]' \"a]b\"","description":"x","status":"running"}]}`,
		`"background_tasks":[{"id":"b0","type":"shell","status":"completed","command":"[ -d y ]"},{"id":"b1","type":"monitor","status":"running","description":"watch"}]}`,
		`"background_tasks" : [ { "status" : "running" } ]}`,
	} {
		checkStop(t, head+body)
	}
}
