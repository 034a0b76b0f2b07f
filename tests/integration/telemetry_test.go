package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/install"
)

// capturedStatusline is Claude Code 2.1.197's statusLine input n, as the
// lab captured it (lib/telemetry/testdata/README.md).
func capturedStatusline(t *testing.T, n int) string {
	t.Helper()
	return read(t, filepath.Join("..", "..", "lib", "telemetry", "testdata", "claude-statusline-"+strconv.Itoa(n)+".json"))
}

// statuslineSession is the session id of the captured payloads.
const statuslineSession = "3a09097f-8266-44f4-a140-f1f29efa7213"

// shim runs the statusline shim exactly as install-hooks --statusline
// writes it into Claude's settings, in pane, with payload on stdin, and
// returns what the statusline shows.
func (e *env) shim(pane, payload string) string {
	e.t.Helper()
	cmd := exec.Command("sh", "-c", install.ShimCommand(filepath.Join(binDir, "tma"), "claude", "echo drawn"))
	cmd.Env = append(e.hookEnv(pane), "PATH="+binDir+":"+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("the shim failed: %v", err)
	}
	return string(out)
}

type gaugeRow struct {
	Pane        string   `json:"pane"`
	Context     *int64   `json:"context"`
	ContextAtMS *int64   `json:"context_at_ms"`
	Tokens      *int64   `json:"tokens"`
	CostUSD     *float64 `json:"cost_usd"`
	Quota       *struct {
		Pct int64 `json:"pct"`
	} `json:"quota"`
}

func (e *env) gauge(pane string) gaugeRow {
	e.t.Helper()
	out, errs, code := e.tma("ls", "--json")
	if code != 0 {
		e.t.Fatalf("ls --json: exit %d: %s", code, errs)
	}
	var doc struct {
		Agents []gaugeRow `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		e.t.Fatal(err)
	}
	for _, r := range doc.Agents {
		if r.Pane == pane {
			return r
		}
	}
	e.t.Fatalf("no row for %s in %s", pane, out)
	return gaugeRow{}
}

// withAt is a captured payload with the event time tma's own plugins
// stamp (tma_at_ms), to send one that arrives after a newer one.
func withAt(payload string, at int64) string {
	p := strings.TrimSpace(payload)
	return p[:len(p)-1] + `,"tma_at_ms":` + strconv.FormatInt(at, 10) + "}"
}

// TestContextStatusline: the captured statusline payloads through the shim
// stamp the gauge; ls --json shows it; a late payload never overwrites a
// newer one; a stored time from a backward clock step does not freeze it.
func TestContextStatusline(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{"session_id":"`+statuslineSession+`","source":"startup"}`)

	// Before the first answer: the model and the cost, no gauge.
	if got := e.shim(a.Pane, capturedStatusline(t, 1)); got != "drawn\n" {
		t.Fatalf("the statusline showed %q, want the wrapped command's output", got)
	}
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_model") == "claude-opus-4-8[1m]" }, "the model stamped")
	if r := e.gauge(a.Pane); r.Context != nil || r.Tokens != nil || r.ContextAtMS != nil || r.CostUSD == nil || *r.CostUSD != 0 {
		t.Fatalf("before any answer: %+v", r)
	}

	e.shim(a.Pane, capturedStatusline(t, 4))
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_tokens") == "24593" }, "the gauge stamped")
	r := e.gauge(a.Pane)
	if r.Context == nil || *r.Context != 2 || r.CostUSD == nil || *r.CostUSD != 0.372755 || r.ContextAtMS == nil || r.Quota != nil {
		t.Fatalf("after the answers: %+v", r)
	}
	at := *r.ContextAtMS

	// A payload dated before the stored one (the shim forwards each in the
	// background, so they can arrive out of order) writes nothing.
	e.fire(a.Pane, "claude", "context", withAt(capturedStatusline(t, 2), at-5000))
	if o := e.opts(a.Pane); o["@agent_tokens"] != "24593" || o["@agent_context_at"] != strconv.FormatInt(at, 10) || o["@agent_cost_usd"] != "0.372755" {
		t.Fatalf("a late payload changed the pane: %v", o)
	}
	// Another session's payload (a resumed or cleared one not yet
	// registered) writes nothing either.
	other := strings.Replace(capturedStatusline(t, 2), statuslineSession, "another-session", 1)
	e.fire(a.Pane, "claude", "context", other)
	if got := e.s.Option(a.Pane, "@agent_tokens"); got != "24593" {
		t.Fatalf("another session's payload landed: tokens %s", got)
	}

	// The stored time is an hour ahead (the clock stepped back): the next
	// payload is taken, and its time replaces the future one.
	future := time.Now().Add(time.Hour).UnixMilli()
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_context_at", strconv.FormatInt(future, 10))
	e.fire(a.Pane, "claude", "context", capturedStatusline(t, 2))
	o := e.opts(a.Pane)
	if o["@agent_tokens"] != "24477" {
		t.Fatalf("after a clock step the gauge froze: %v", o)
	}
	if got, _ := strconv.ParseInt(o["@agent_context_at"], 10, 64); got >= future {
		t.Errorf("context_at %d still in the future", got)
	}

	// doctor names the stamped model; no shipped channel sizes its gauge
	// from [telemetry.windows], so there is no unrecognized: label.
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "model: claude-opus-4-8[1m]") || strings.Contains(out, "unrecognized:") {
		t.Errorf("doctor:\n%s", out)
	}

	// The session's end clears the gauge with the rest.
	e.fire(a.Pane, "claude", "SessionEnd", `{"session_id":"`+statuslineSession+`","reason":"exit"}`)
	if o := e.opts(a.Pane); o["@agent_context_pct"] != "" || o["@agent_tokens"] != "" || o["@agent_model"] != "" || o["@agent_cost_usd"] != "" {
		t.Errorf("session end left telemetry: %v", o)
	}
}

// TestContextNotRegistered: a payload for a pane no agent holds stamps
// nothing (a gauge there would outlive any agent unseen).
func TestContextNotRegistered(t *testing.T) {
	e := newEnv(t, laneOff)
	pane := strings.TrimSpace(e.s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	e.fire(pane, "claude", "context", capturedStatusline(t, 4))
	if o := e.opts(pane); o["@agent_tokens"] != "" || o["@agent_model"] != "" {
		t.Fatalf("a pane with no agent got telemetry: %v", o)
	}
}

// TestCompactGate: the bundled compact action opens at 75% and not below,
// fed by context payloads, and fires /compact then Enter on the pane.
func TestCompactGate(t *testing.T) {
	e := newEnv(t, laneOff)
	a, log := e.s.StartRecordingAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{"session_id":"`+statuslineSession+`","source":"startup"}`)
	// The captured payload with the gauge set to n: the shape is Claude's,
	// the number is the test's.
	at := time.Now().UnixMilli() - 30_000
	feed := func(n int) {
		t.Helper()
		at += 1000
		p := strings.Replace(capturedStatusline(t, 4), `"used_percentage":2,`, `"used_percentage":`+strconv.Itoa(n)+`,`, 1)
		e.fire(a.Pane, "claude", "context", withAt(p, at))
		if got := e.s.Option(a.Pane, "@agent_context_pct"); got != strconv.Itoa(n) {
			t.Fatalf("gauge %q, want %d", got, n)
		}
	}
	r, errs, code := e.actJSON(nil, "compact", "--pane", a.Pane)
	if code != 4 || r.reason() != "gated" || !strings.Contains(errs, "no context reading") {
		t.Fatalf("compact with no gauge: %+v exit %d: %s", r, code, errs)
	}
	feed(74)
	if r, errs, code := e.actJSON(nil, "compact", "--pane", a.Pane); code != 4 || r.reason() != "gated" || !strings.Contains(errs, "74%") {
		t.Fatalf("compact at 74%%: %+v exit %d: %s", r, code, errs)
	}
	e.nothingSent(log)
	feed(75)
	if out, _, code := e.tma("act", "compact", "--pane", a.Pane, "--dry-run"); code != 0 || !strings.Contains(out, "gate:    fireable") {
		t.Fatalf("compact at 75%% dry-run: exit %d:\n%s", code, out)
	}
	if r, errs, code := e.actJSON(nil, "compact", "--pane", a.Pane); code != 0 || r.Outcome != "sent" {
		t.Fatalf("compact at 75%%: %+v exit %d: %s", r, code, errs)
	}
	e.waitSent(log, "/compact\r")
}

// TestContextRollout: a codex event whose transcript is a rollout stamps
// the rollout's last token_count with the event, dated by the record.
func TestContextRollout(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("codex", claudeIdle)
	dir := t.TempDir()
	rollout := filepath.Join(dir, "rollout-2026-12-01T11-04-43-01a23147-44ab-7881-921c-3634dfd4839f.jsonl")
	src := read(t, filepath.Join("..", "..", "lib", "telemetry", "testdata", "codex-rollout.jsonl"))
	if err := os.WriteFile(rollout, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	sessionPayload := `{"session_id":"01a23147-44ab-7881-921c-3634dfd4839f","transcript_path":"` + rollout + `"`
	e.fire(a.Pane, "codex", "SessionStart", sessionPayload+`,"source":"startup"}`)
	e.fire(a.Pane, "codex", "Stop", sessionPayload+`}`)
	o := e.opts(a.Pane)
	if o["@agent_tokens"] != "13460" || o["@agent_context_pct"] != "5" || o["@agent_model"] != "mock-model" || o["@agent_context_at"] != "1796123152767" {
		t.Fatalf("after Stop: %v", o)
	}
	if o["@agent_state"] != "idle" {
		t.Errorf("the claim did not land with the reading: %v", o)
	}
	// The rollout gains nothing newer: the next event rewrites nothing.
	before := e.s.MustRun("show-options", "-p", "-t", a.Pane, "@agent_context_at")
	e.fire(a.Pane, "codex", "UserPromptSubmit", sessionPayload+`,"prompt":"x"}`)
	if after := e.s.MustRun("show-options", "-p", "-t", a.Pane, "@agent_context_at"); after != before {
		t.Errorf("context_at moved with no new record: %s -> %s", before, after)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("UserPromptSubmit: state %q", got)
	}
}

// TestContextPi: pi's agent_settled payload (the lab's capture) carries
// its context usage; the claim and the gauge land in the one write.
func TestContextPi(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("pi", claudeIdle)
	e.fire(a.Pane, "pi", "session_start", `{"hook_event_name":"session_start","session_id":"01a228b3-0ece-76e2-976c-4551d3674f8d"}`)
	e.fire(a.Pane, "pi", "agent_settled", `{"hook_event_name":"agent_settled","cwd":"/tmp/lab/project","session_id":"01a228b3-0ece-76e2-976c-4551d3674f8d","context":{"tokens":2220,"contextWindow":128000,"percent":1.7343750000000002},"from":"agent_end"}`)
	o := e.opts(a.Pane)
	if o["@agent_tokens"] != "2220" || o["@agent_context_pct"] != "2" || o["@agent_state"] != "idle" {
		t.Fatalf("after agent_settled: %v", o)
	}
	// The extension that forwards pi's model (ctx.model.id): its payload as
	// the real pi 0.73.1 sent it in the lab (lib/telemetry/testdata), with
	// this test's session id and without its tma_at_ms, so it is dated at
	// receipt (newer than the first).
	first := o["@agent_context_at"]
	e.fire(a.Pane, "pi", "agent_settled", `{"hook_event_name":"agent_settled","cwd":"/tmp/lab/project","session_id":"01a228b3-0ece-76e2-976c-4551d3674f8d","context":{"tokens":1572,"contextWindow":128000,"percent":1.2281250000000001},"model":"mock-model","from":"agent_end"}`)
	o = e.opts(a.Pane)
	if o["@agent_model"] != "mock-model" || o["@agent_tokens"] != "1572" || o["@agent_context_at"] <= first {
		t.Fatalf("after the agent_settled that names the model: %v", o)
	}
}

// TestContextThroughDaemon: with a daemon running the statusline's context
// event is handed to it, and the daemon makes the same guarded write.
func TestContextThroughDaemon(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{"session_id":"`+statuslineSession+`","source":"startup"}`)
	e.ensure()
	said := e.fireToDaemon(a.Pane, "claude", "context", capturedStatusline(t, 3), "handed to the daemon")
	if !strings.Contains(said, "handed to the daemon") {
		t.Fatalf("the hook stamped it itself:\n%s", said)
	}
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_tokens") == "24514" }, "the daemon's write")
	// The writer logs after its write lands: wait for the line, do not race it.
	want := "hook claude context on " + a.Pane + ": context 2%, 24514 tokens"
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(e.daemonLog(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("daemon log:\n%s", e.daemonLog())
		}
	}
	// An older payload handed over later writes nothing there either.
	at, _ := strconv.ParseInt(e.s.Option(a.Pane, "@agent_context_at"), 10, 64)
	e.fire(a.Pane, "claude", "context", withAt(capturedStatusline(t, 2), at-3000))
	time.Sleep(300 * time.Millisecond)
	if got := e.s.Option(a.Pane, "@agent_tokens"); got != "24514" {
		t.Errorf("a late payload through the daemon landed: tokens %s", got)
	}
}
