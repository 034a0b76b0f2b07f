package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// labEvent is one line of a lab hook log: an event the agent fired, or a
// step marker of the driver.
type labEvent struct {
	Step    string          `json:"lab_step"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

func readLabLog(t *testing.T, rel string) []labEvent {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var ev labEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		out = append(out, ev)
	}
	return out
}

// running counts the background tasks a Stop payload lists as running.
func running(t *testing.T, payload json.RawMessage) int {
	t.Helper()
	var p struct {
		Tasks []struct {
			Status string `json:"status"`
		} `json:"background_tasks"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range p.Tasks {
		if task.Status == "running" {
			n++
		}
	}
	return n
}

// Screens in the shape of Claude Code 2.1.197's while background work runs
// (fixtures/claude/working-background-shell-w120.txt): its turn over, the
// prompt box, and under it the footer naming the work.
var (
	claudeBackground = screenOf("✳ Probe", "> BGBASH 80\n\n● Bash(sleep 80)\n  ⎿  Running in the background (↓ to manage)\n\n● Done.\n\n✻ Crunched for 0s · 1 shell still running\n\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  1 shell · ← for agents · ↓ to manage\n")
)

// TestClaudeBackgroundWork replays the Stop payloads Claude Code 2.1.197
// sent in the lab around a background shell and a background subagent
// (fixtures/claude/hooks/background.jsonl): a Stop listing a running task
// is working/background with no attention, through its idle_prompt
// notification and the re-invocation turn in between; the Stop after the
// last task is idle and done, once. Scripts see the same: wait --until idle
// does not return, subscribe --events prints no edge until the end,
// --state working selects the pane and the detail says background.
func TestClaudeBackgroundWork(t *testing.T) {
	evs := readLabLog(t, filepath.Join("claude", "hooks", "background.jsonl"))
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)

	// The log's session is the lab's: its SessionStart registers it here.
	fire := func(ev labEvent) { e.fire(a.Pane, "claude", ev.Event, string(ev.Payload)) }
	state := func() string {
		o := e.opts(a.Pane)
		s := o["@agent_state"]
		if d := o["@agent_detail"]; d != "" {
			s += "/" + d
		}
		if o["@agent_attention"] == "1" {
			s += " attn"
		}
		return s
	}

	var bgStops, endStops, idlePrompts, reinvoked int
	var waitCmd *exec.Cmd
	var waitOut, subOut <-chan string
	var subErr *bytes.Buffer
	inBackground := false
	for _, ev := range evs {
		if ev.Event == "" {
			continue
		}
		before, turnAt := state(), e.s.Option(a.Pane, "@agent_turn_at")
		fire(ev)
		after := state()
		switch {
		case ev.Event == "Stop" && running(t, ev.Payload) > 0:
			bgStops++
			// No turn end: the state is working/background and no attention
			// is raised (a mark left by an earlier done stays as it was
			// until someone looks, as on any working pane).
			want := "working/background"
			if strings.HasSuffix(before, " attn") {
				want += " attn"
			}
			if after != want || e.s.Option(a.Pane, "@agent_turn_at") != turnAt {
				t.Fatalf("Stop with %d running task(s): %q (was %q, turn at %s → %s), want %q", running(t, ev.Payload), after, before, turnAt, e.s.Option(a.Pane, "@agent_turn_at"), want)
			}
			if !inBackground {
				inBackground = true
				// Between the turns Claude draws its idle prompt box: with
				// the footer naming the work, and without it (a screen the
				// rule cannot read), the claim holds over several cycles.
				for _, scr := range []string{claudeBackground, claudeIdle} {
					a.Paint(scr)
					for i := 0; i < 4; i++ {
						if got := e.ls()[a.Pane]; got != want {
							t.Fatalf("cycle %d over the background claim: %q", i, got)
						}
						time.Sleep(400 * time.Millisecond)
					}
				}
				out, _, code := e.tma("ls", "--state", "working")
				if code != 0 || !strings.Contains(out, a.Pane+"\tclaude\tworking\tbackground\t") {
					t.Fatalf("ls --state working: exit %d %q", code, out)
				}
				if out, _, _ := e.tma("ls", "--state", "idle,done"); strings.Contains(out, a.Pane) {
					t.Fatalf("ls --state idle,done selects the background pane: %q", out)
				}
				var doc struct {
					Agents []struct {
						Pane, State string
						Detail      *string
						Attention   bool
						Done        bool
					}
				}
				out, _, _ = e.tma("ls", "--json", "--pane", a.Pane)
				if json.Unmarshal([]byte(out), &doc) != nil || len(doc.Agents) != 1 || doc.Agents[0].Detail == nil || *doc.Agents[0].Detail != "background" || doc.Agents[0].Done || doc.Agents[0].State != "working" {
					t.Fatalf("ls --json: %s", out)
				}
				waitCmd, waitOut, _ = e.startIn(e.run, "wait", "--pane", a.Pane, "--until", "idle", "--interval", "200ms", "--json", "--timeout", "60")
				_, subOut, subErr = e.startIn(e.run, "subscribe", "--json", "--events", "--interval", "200ms")
				time.Sleep(1500 * time.Millisecond) // the wait's and the stream's first cycles
			}
		case ev.Event == "Stop":
			endStops++
			if after != "idle attn" {
				t.Fatalf("the Stop with no running task: %q, want idle with attention (done)", after)
			}
			if inBackground {
				inBackground = false
				if waitOut != nil {
					var row map[string]any
					select {
					case l := <-waitOut:
						if json.Unmarshal([]byte(l), &row) != nil || row["state"] != "idle" || row["done"] != true {
							t.Fatalf("wait --until idle printed %q", l)
						}
					case <-time.After(20 * time.Second):
						t.Fatal("wait --until idle did not return at the last Stop")
					}
					waitCmd.Wait()
					got := nextEvent(t, subOut, 20*time.Second)
					var edge struct{ Pane, From, To string }
					if json.Unmarshal([]byte(got), &edge) != nil || edge.Pane != a.Pane || edge.From != "working" || edge.To != "done" {
						t.Fatalf("subscribe --events at the end of the background work: %s", got)
					}
					waitOut = nil
				}
			}
		case ev.Event == "Notification" && strings.Contains(string(ev.Payload), `"idle_prompt"`):
			if after != before {
				t.Fatalf("idle_prompt moved %q to %q", before, after)
			}
			if inBackground {
				idlePrompts++
			}
		case ev.Event == "UserPromptSubmit" && strings.Contains(string(ev.Payload), "task-notification"):
			// Claude's re-invocation when a task ends: working, no edge.
			reinvoked++
			if !strings.HasPrefix(after, "working") {
				t.Fatalf("re-invocation turn: %q", after)
			}
		}
		if inBackground && waitOut != nil {
			select {
			case l := <-waitOut:
				t.Fatalf("wait --until idle returned during background work (after %s): %q", ev.Event, l)
			case l, ok := <-subOut:
				if !ok {
					t.Fatalf("subscribe --events ended: %s", subErr)
				}
				t.Fatalf("subscribe --events printed an edge during background work (after %s): %s", ev.Event, l)
			default:
			}
		}
	}
	t.Logf("%d Stops with running tasks, %d without, %d idle_prompt during background work, %d re-invocations", bgStops, endStops, idlePrompts, reinvoked)
	if bgStops < 2 || reinvoked < 2 || idlePrompts < 1 {
		t.Fatalf("the recording lacks what this test is about: %d background Stops, %d re-invocations, %d idle_prompt", bgStops, reinvoked, idlePrompts)
	}
}
