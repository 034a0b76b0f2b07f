package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/install"
)

// TestRecordedHookEvents replays the hook events the lab recorded from each
// real agent, in order, through tma-hook into an isolated server, and checks
// at every captured step that the pane's hook state is the state the lab saw
// on screen there. Steps whose transition fires no event at all (a reject or
// an interrupt with Esc, a first-run dialog before any hook loads) are the
// screen's to resolve and are skipped here; TestHookAndCaptureRaceBothOrders
// covers them.
// screenOnly are captured steps whose state no hook reports, per agent, and why.
var screenOnly = map[string]map[string]string{
	// Approving Gemini's prompt fires nothing until AfterTool: while the tool
	// runs the hook state is still blocked, and the fold's release of a
	// blocked claim whose dialog is gone takes it to working.
	"gemini": {"working-tool": "approve fires no event until AfterTool"},
	// Claude 2.1.332's auto mode classifier billing notice stops a tool call
	// with no event of its own: PreToolUse's working claim stands under it.
	"claude": {"blocked-auto-notice": "auto mode's billing notice fires no event"},
	// Approving Codex's prompt fires nothing until PostToolUse.
	"codex": {"working-tool": "approve fires no event until PostToolUse"},
	// Approving Copilot's prompt fires nothing until postToolUse; a Ctrl+C on
	// a running turn fires nothing, so the mode steps after the interrupt
	// still hold its working claim (the screen's idle footer releases it).
	"copilot": {
		"working-tool":        "approve fires no event until postToolUse",
		"idle-mode-plan":      "no event since the interrupt",
		"idle-mode-autopilot": "no event since the interrupt",
	},
	// pi's permission-gate example asks through ctx.ui.select inside its
	// tool_call handler: no event marks the dialog.
	// confirm-destructive.ts asks inside session_before_switch/_fork, which
	// no event reports either.
	"pi": {
		"blocked-permission-gate": "an extension's select fires no event",
		"blocked-confirm":         "an extension's confirm fires no event",
		"blocked-select":          "an extension's select fires no event",
		// rpc-demo.ts's /rpc-input and /rpc-editor ask from a command
		// handler: no event marks either box (the questionnaire tool's
		// start in the same recording does claim blocked/question).
		"blocked-input":  "a command's ctx.ui.input fires no event",
		"blocked-editor": "a command's ctx.ui.editor fires no event",
		// rpc-demo.ts's own gate asks through ctx.ui.select in its
		// tool_call handler, as permission-gate.ts does.
		"blocked-rpc-gate": "an extension's select fires no event",
	},
}

func TestRecordedHookEvents(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	recordings, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "fixtures", "*", "hooks", "*.jsonl"))
	if len(recordings) == 0 {
		t.Skip("no recorded hook events")
	}
	ms := load(t)
	for _, rec := range recordings {
		agent := filepath.Base(filepath.Dir(filepath.Dir(rec)))
		t.Run(agent+"/"+filepath.Base(rec), func(t *testing.T) {
			a := ms.Get(agent)
			if a == nil {
				t.Fatalf("no manifest for %s", agent)
			}
			// The replay fires one event after another, so a claude
			// PermissionRequest holding for a verdict would stall it for the
			// whole hold: the lane is off here and tested in lane_test.go.
			e := newEnv(t, laneOff)
			p := e.s.StartAgent(a.ProcessNames[0], "")
			f, err := os.Open(rec)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<22)
			// The states this recording's events can claim: a channel the lab
			// did not wire (Codex's hooks.json before /hooks trust) says nothing.
			claims := map[string]bool{}
			var lines [][]byte
			for sc.Scan() {
				lines = append(lines, viaPlugin(agent, sc.Bytes()))
				var ln struct {
					Event   string          `json:"event"`
					Payload json.RawMessage `json:"payload"`
				}
				if json.Unmarshal(lines[len(lines)-1], &ln) == nil && ln.Event != "" {
					if m := a.MapEvent(ln.Event, string(ln.Payload)); m != nil {
						claims[m.Claim.State] = true
						if m.Claim.Lifecycle == "start" {
							claims["idle"] = true
						}
					}
				}
			}
			if len(claims) == 0 {
				t.Skipf("%s: no mapped event recorded", rec)
			}
			lines = unheld(lines)
			events, checks, mapped := 0, 0, false
			for _, raw := range lines {
				var ln struct {
					Step    string          `json:"lab_step"`
					Event   string          `json:"event"`
					Payload json.RawMessage `json:"payload"`
				}
				if err := json.Unmarshal(raw, &ln); err != nil {
					t.Fatalf("%s: %v", rec, err)
				}
				switch {
				case ln.Event != "":
					events++
					mapped = mapped || a.MapEvent(ln.Event, string(ln.Payload)) != nil
					if ln.Event == "notify" { // Codex's notify passes the payload as the last argument
						e.fire(p.Pane, agent, ln.Event, "", string(ln.Payload))
					} else {
						e.fire(p.Pane, agent, ln.Event, string(ln.Payload))
					}
				case strings.HasPrefix(ln.Step, "captured "):
					shot := strings.TrimPrefix(ln.Step, "captured ")
					want, _, _ := strings.Cut(shot, "-")
					if strings.Contains(shot, "trust") || strings.Contains(shot, "reject") || strings.Contains(shot, "interrupt") || screenOnly[agent][shot] != "" {
						continue
					}
					if !mapped || !claims[want] {
						continue // no hook has spoken yet, or none of them reports this state
					}
					got := e.s.Option(p.Pane, "@agent_state")
					checks++
					if got != want {
						t.Errorf("at %q: hook state %q, the screen showed %s", ln.Step, got, want)
					}
				}
			}
			t.Logf("%d events replayed, %d steps checked", events, checks)
			if checks == 0 {
				t.Error("nothing checked")
			}
		})
	}
}

// viaPlugin turns a raw bus event the lab logged from OpenCode into what
// tma's plugin forwards (shell/plugins/opencode.js): its event name and
// payload shape. Other agents' lines pass unchanged.
func viaPlugin(agent string, line []byte) []byte {
	out := append([]byte(nil), line...)
	if agent != "opencode" {
		return out
	}
	var ln struct {
		Event   string         `json:"event"`
		Payload map[string]any `json:"payload"`
	}
	if json.Unmarshal(line, &ln) != nil || ln.Event == "" {
		return out
	}
	source := ln.Event
	if source == "session.status" {
		if st, ok := ln.Payload["status"].(map[string]any); ok {
			source += ":" + fmt.Sprint(st["type"])
		}
	}
	name := install.OpencodeEvent(source)
	if name == "" {
		return []byte(`{"ignored":true}`)
	}
	payload := map[string]any{"hook_event_name": name, "source": source, "properties": ln.Payload}
	if id, ok := ln.Payload["sessionID"].(string); ok {
		payload["session_id"] = id
	} else if info, ok := ln.Payload["info"].(map[string]any); ok {
		payload["session_id"] = info["id"]
	}
	b, _ := json.Marshal(map[string]any{"event": name, "payload": payload})
	return b
}

// unheld puts each event back before the lines it was logged after but
// dated well before: a line is logged when its hook ends, and a hook that
// holds (Claude's PermissionRequest under the reply lane, in the
// installed-hook runs) ends after the steps and events it held across
// (seconds: until the prompt is answered), though it claimed at its start.
// Lines dated within heldSlack of each other keep their logged order: two
// hooks that ran at once (pi's session_shutdown and session_start, 2 ms
// apart) are logged in the agent's order, not their times'. An event whose
// payload carries tma_at_ms (tma's pi extension stamps it as pi fires the
// event, the order tma receives them) is placed by that stamp with no
// slack: pi's before_agent_start was logged 61 ms after the question
// tool's tool_execution_start it preceded (installed.jsonl, 2026-12-07).
func unheld(lines [][]byte) [][]byte {
	const heldSlack = 0.25 // seconds
	type line struct {
		raw   []byte
		step  bool
		at    float64
		stamp float64 // tma_at_ms in seconds, 0 without one
	}
	var out []line
	for _, raw := range lines {
		var ln struct {
			Step    string  `json:"lab_step"`
			Time    float64 `json:"time"`
			Payload struct {
				At float64 `json:"tma_at_ms"`
			} `json:"payload"`
		}
		_ = json.Unmarshal(raw, &ln)
		l := line{raw, ln.Step != "", ln.Time, ln.Payload.At / 1000}
		i := len(out)
		for !l.step && l.at > 0 && i > 0 && out[i-1].at > l.at+heldSlack {
			i--
		}
		for !l.step && l.stamp > 0 && i > 0 && out[i-1].stamp > l.stamp {
			i--
		}
		out = append(out[:i], append([]line{l}, out[i:]...)...)
	}
	res := make([][]byte, len(out))
	for i, l := range out {
		res[i] = l.raw
	}
	return res
}
