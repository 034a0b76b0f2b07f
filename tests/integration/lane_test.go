package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// heldHook is a tma-hook run in the background, as claude runs its
// PermissionRequest hook: it may hold.
type heldHook struct {
	cmd        *exec.Cmd
	out, errb  bytes.Buffer
	done       chan error
	pane, run  string
	t          *testing.T
	finishedAt time.Time
}

const askPayload = `{` + sess + `,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"touch probe.txt","description":"probe"}}`

func (e *env) fireAsync(pane, event, payload string) *heldHook {
	e.t.Helper()
	h := &heldHook{pane: pane, run: e.run, t: e.t, done: make(chan error, 1)}
	h.cmd = exec.Command(filepath.Join(binDir, "tma-hook"), "claude", event)
	h.cmd.Env = e.hookEnv(pane)
	h.cmd.Stdin = strings.NewReader(payload)
	h.cmd.Stdout, h.cmd.Stderr = &h.out, &h.errb
	if err := h.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		err := h.cmd.Wait()
		h.finishedAt = time.Now()
		h.done <- err
	}()
	e.t.Cleanup(func() { _ = h.cmd.Process.Kill() })
	return h
}

// wait waits for the hook to exit 0 within d and returns its stdout.
func (h *heldHook) wait(d time.Duration) string {
	h.t.Helper()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Fatalf("tma-hook exited non-zero: %v\n%s", err, h.errb.String())
		}
		return h.out.String()
	case <-time.After(d):
		h.t.Fatalf("tma-hook still holding after %v\n%s", d, h.errb.String())
	}
	return ""
}

func (h *heldHook) running() bool {
	select {
	case err := <-h.done:
		h.done <- err
		return false
	default:
		return true
	}
}

// records lists the request records in the test's runtime dir.
func (e *env) records() []string {
	paths, _ := filepath.Glob(filepath.Join(e.run, "tma", "requests", "*.json"))
	return paths
}

// held starts a PermissionRequest hook on pane and waits until it holds:
// the request id on the pane, its record written. It returns the id.
func (e *env) held(pane string) (*heldHook, string) {
	e.t.Helper()
	h := e.fireAsync(pane, "PermissionRequest", askPayload)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		id := e.s.Option(pane, "@agent_permission_request")
		if id != "" && len(e.records()) == 1 && strings.Contains(e.records()[0], id) {
			return h, id
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("no held request on %s (records %v)\n%s", pane, e.records(), h.errb.String())
	return nil, ""
}

const (
	allowObject = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"
	denyObject  = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied by the user through tma (tma act deny)"}}}` + "\n"
)

// TestReplyLaneApproveAndDeny: a held PermissionRequest hook carries its id
// on the pane and in ls; approve (bound to that id) and deny hand it
// claude's decision object, act says replied, the audit kind is hook, the
// request is unset, and no key reaches the pane.
func TestReplyLaneApproveAndDeny(t *testing.T) {
	log := filepath.Join(t.TempDir(), "acts.jsonl")
	e := newEnv(t, "[act]\nlog = \""+log+"\"\n")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)

	h, id := e.held(a.Pane)
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Fatalf("request id %q is not 16 lowercase hex digits", id)
	}
	rec := e.records()[0]
	if st, _ := os.Stat(rec); st.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(rec)); st.Mode().Perm() != 0o700 {
		t.Errorf("requests dir mode %v, want 0700", st.Mode().Perm())
	}
	b, _ := os.ReadFile(rec)
	if !strings.Contains(string(b), `"pane":"`+a.Pane+`"`) || !strings.Contains(string(b), `"summary":"touch probe.txt"`) {
		t.Errorf("record: %s", b)
	}
	// The ls row carries the id.
	out, _, _ := e.tma("ls", "--json")
	var doc struct {
		Agents []struct {
			Pane              string  `json:"pane"`
			PermissionRequest *string `json:"permission_request"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Agents) != 1 || doc.Agents[0].PermissionRequest == nil || *doc.Agents[0].PermissionRequest != id {
		t.Fatalf("ls row permission_request: %s", out)
	}
	// --dry-run names the held request.
	dry, _, code := e.tma("act", "approve", "--pane", a.Pane, "--dry-run")
	if code != 0 || !strings.Contains(dry, "effect:  hook: reply allow to request "+id) {
		t.Fatalf("dry run: exit %d\n%s", code, dry)
	}

	start := time.Now()
	r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane, "--expect-permission-request", id)
	if code != 0 || r.Outcome != "replied" || r.Reason != nil {
		t.Fatalf("approve over the lane: exit %d %+v %s", code, r, errs)
	}
	if got := h.wait(2 * time.Second); got != allowObject {
		t.Fatalf("hook stdout %q, want the allow object", got)
	}
	t.Logf("act approve to hook exit: %v", h.finishedAt.Sub(start))
	e.nothingSent(in)
	if v := e.s.Option(a.Pane, "@agent_permission_request"); v != "" {
		t.Errorf("the request was not unset after the reply: %q", v)
	}
	if n := len(e.records()); n != 0 {
		t.Errorf("%d records left", n)
	}

	// Deny: the turn goes on (PostToolUse or Stop would come next).
	h, _ = e.held(a.Pane)
	r, errs, code = e.actJSON(nil, "deny", "--pane", a.Pane)
	if code != 0 || r.Outcome != "replied" {
		t.Fatalf("deny over the lane: exit %d %+v %s", code, r, errs)
	}
	if got := h.wait(2 * time.Second); got != denyObject {
		t.Fatalf("hook stdout %q, want the deny object", got)
	}
	e.nothingSent(in)

	lb, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(lb)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"action":"approve","kind":"hook"`) || !strings.Contains(lines[1], `"action":"deny","kind":"hook"`) ||
		!strings.Contains(lines[0], `"outcome":"replied"`) {
		t.Fatalf("audit:\n%s", lb)
	}
}

// TestReplyLaneExpiryAndKeys: a hold that runs out prints nothing, exits 0
// and deletes its record; the pane still carries the id, but with no hook
// holding it approve sends the keys, as does a pane whose lane is off.
func TestReplyLaneExpiryAndKeys(t *testing.T) {
	e := newEnv(t, "[hooks]\nclaude_reply_lane = { hold_ms = 1000 }\n")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	start := time.Now()
	h := e.fireAsync(a.Pane, "PermissionRequest", askPayload)
	if got := h.wait(5 * time.Second); got != "" {
		t.Fatalf("expired hold printed %q", got)
	}
	if d := time.Since(start); d < time.Second || d > 3*time.Second {
		t.Errorf("a 1000 ms hold took %v", d)
	}
	if n := len(e.records()); n != 0 {
		t.Errorf("the expired record was not deleted (%d left)", n)
	}
	// Nobody holds the request any more: its id is off the pane.
	if id := e.s.Option(a.Pane, "@agent_permission_request"); id != "" {
		t.Errorf("an expired hold left its request id %q on the pane", id)
	}
	dry, _, _ := e.tma("act", "approve", "--pane", a.Pane, "--dry-run")
	if !strings.Contains(dry, "effect:  keys: 1") {
		t.Errorf("dry run with no hook holding:\n%s", dry)
	}
	r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane)
	if code != 0 || r.Outcome != "sent" {
		t.Fatalf("approve with no hook holding: exit %d %+v %s", code, r, errs)
	}
	e.waitSent(in, "1")

	// Lane off: the hook stamps and returns at once, with no id and no record.
	off := newEnv(t, laneOff)
	b, _ := off.s.StartRecordingAgent("claude", claudeBlocked)
	start = time.Now()
	h = off.fireAsync(b.Pane, "PermissionRequest", askPayload)
	if got := h.wait(3 * time.Second); got != "" {
		t.Fatalf("lane off printed %q", got)
	}
	// A hold would last the default hold_ms (25 s); the bound is loose
	// enough for race-instrumented binaries on a loaded machine.
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("lane off: the hook took %v", d)
	}
	if v := off.s.Option(b.Pane, "@agent_state"); v != "blocked" {
		t.Errorf("lane off: state %q", v)
	}
	if v := off.s.Option(b.Pane, "@agent_permission_request"); v != "" || len(off.records()) != 0 {
		t.Errorf("lane off: request %q, records %v", v, off.records())
	}
	// A stale id from an earlier hold is taken off by a prompt with the lane off.
	off.s.MustRun("set", "-p", "-t", b.Pane, "@agent_permission_request", "0123456789abcdef")
	off.fire(b.Pane, "claude", "PermissionRequest", askPayload)
	if v := off.s.Option(b.Pane, "@agent_permission_request"); v != "" {
		t.Errorf("lane off: a stale request id %q survived a new prompt", v)
	}
}

// A hook killed mid-hold leaves its record only until the next event.
func TestReplyLaneKilledHookSwept(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	h, _ := e.held(a.Pane)
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-h.done
	if len(e.records()) != 1 {
		t.Fatalf("records after the kill: %v", e.records())
	}
	e.fire(a.Pane, "claude", "Notification", `{`+sess+`,"message":"Claude is waiting for your input"}`)
	if r := e.records(); len(r) != 0 {
		t.Errorf("a killed hook's record survived the next event: %v", r)
	}
}

// TestReplyLaneRequestGoneAndNextEvent: a fire bound to another request id
// is refused request-gone (exit 4) and sends nothing, the hook still
// holding; the agent's next event unsets the id and releases the hook,
// empty-handed.
func TestReplyLaneRequestGoneAndNextEvent(t *testing.T) {
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	h, id := e.held(a.Pane)

	r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane, "--expect-permission-request", "0123456789abcdef")
	if code != 4 || r.Outcome != "refused" || r.reason() != "request-gone" {
		t.Fatalf("mismatched request: exit %d %+v %s", code, r, errs)
	}
	e.nothingSent(in)
	if !h.running() || e.s.Option(a.Pane, "@agent_permission_request") != id {
		t.Fatal("a refused fire disturbed the held request")
	}

	// A Notification (still blocked) keeps it; PostToolUse (a key answered
	// the dialog) clears it.
	e.fire(a.Pane, "claude", "Notification", `{`+sess+`,"notification_type":"permission_prompt"}`)
	if !h.running() || e.s.Option(a.Pane, "@agent_permission_request") != id {
		t.Fatal("a blocked Notification released the held request")
	}
	start := time.Now()
	e.fire(a.Pane, "claude", "PostToolUse", `{`+sess+`,"tool_name":"Bash"}`)
	if got := h.wait(2 * time.Second); got != "" {
		t.Fatalf("released hook printed %q", got)
	}
	t.Logf("next event to released hook: %v", h.finishedAt.Sub(start))
	if v := e.s.Option(a.Pane, "@agent_permission_request"); v != "" {
		t.Errorf("PostToolUse left the request: %q", v)
	}
	if n := len(e.records()); n != 0 {
		t.Errorf("%d records left", n)
	}
}

// TestReplyLaneLostStampDoesNotHold: a PermissionRequest whose stamp loses
// the guard to newer evidence (its own event time is older than the
// pane's) carries no request id on the pane, so nothing could answer it:
// the hook exits at once instead of sleeping out its hold.
func TestReplyLaneLostStampDoesNotHold(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)
	now := time.Now().UnixMilli()
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"tma_at_ms":`+itoa(now-10)+`}`)
	older := strings.Replace(askPayload, `{`, `{"tma_at_ms":`+itoa(now-500)+`,`, 1)
	h := e.fireAsync(a.Pane, "PermissionRequest", older)
	if out := h.wait(5 * time.Second); out != "" {
		t.Errorf("a hook whose stamp lost printed %q", out)
	}
	if id := e.s.Option(a.Pane, "@agent_permission_request"); id != "" {
		t.Errorf("the losing stamp wrote a request id: %q", id)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("the older PermissionRequest overwrote the newer claim: %q", got)
	}
	if r := e.records(); len(r) != 0 {
		t.Errorf("records left: %v", r)
	}
}
