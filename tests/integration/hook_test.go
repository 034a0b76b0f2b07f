package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// fire runs tma-hook as an agent's config would: payload on stdin,
// $TMUX_PANE naming the pane, the socket from TMA_SOCKET_PATH.
func (e *env) fire(pane, agent, event, payload string, extra ...string) string {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "tma-hook"), append([]string{agent, event}, extra...)...)
	cmd.Env = e.hookEnv(pane)
	cmd.Stdin = strings.NewReader(payload)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("tma-hook exited non-zero: %v\n%s", err, errb.String())
	}
	return errb.String()
}

// fireToDaemon fires an event a running daemon should answer (want: what
// the hook then says) and returns what the hook said. The hand-off is
// bounded at 20 ms (hookcmd.DaemonAckTimeout) by design, and past it the
// hook stamps the pane itself, which is as right; on a loaded machine a
// daemon can miss that bound, so an unacknowledged hand-off is fired
// again, up to 20 times. Anything else is returned at once.
func (e *env) fireToDaemon(pane, agent, event, payload, want string) string {
	e.t.Helper()
	var said string
	for i := 0; i < 20; i++ {
		said = e.fire(pane, agent, event, payload)
		if strings.Contains(said, want) || !strings.Contains(said, "the daemon did not acknowledge") {
			return said
		}
		time.Sleep(100 * time.Millisecond)
	}
	return said
}

// hookEnv is the environment an agent gives tma-hook in pane.
func (e *env) hookEnv(pane string) []string {
	return append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "TMA_CONFIG=", "XDG_CONFIG_HOME=", "TMUX=", "TMUX_PANE="+pane,
		"TMA_SOCKET_PATH="+e.s.Socket, "TMA_HOOK_DEBUG=1")
}

// laneOff turns the claude reply lane off, for tests of what a
// PermissionRequest stamps (with it on, that hook holds for 25 s).
const laneOff = "[hooks]\nclaude_reply_lane = false\n"

func (e *env) opts(pane string) map[string]string {
	out := e.s.MustRun("show-options", "-p", "-t", pane)
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, " "); ok && strings.HasPrefix(k, "@") {
			m[k] = strings.Trim(v, `"`)
		}
	}
	return m
}

const sess = `"session_id":"s-1","transcript_path":"/tmp/t.jsonl"`

func TestHookLifecycle(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)

	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	o := e.opts(a.Pane)
	if o["@agent_name"] != "claude" || o["@agent_session"] != "s-1" || o["@agent_transcript"] != "/tmp/t.jsonl" || o["@agent_state"] != "idle" || o["@agent_source"] != "hook" {
		t.Fatalf("registration: %v", o)
	}
	if o["@agent_pid"] == "" {
		t.Errorf("no @agent_pid")
	}

	start := time.Now()
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Fatalf("UserPromptSubmit: state %q", got)
	}
	t.Logf("event to readable option: %v", time.Since(start))

	e.fire(a.Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"touch probe.txt","description":"probe"}}`)
	o = e.opts(a.Pane)
	if o["@agent_state"] != "blocked" || o["@agent_detail"] != "permission" || o["@agent_attention"] != "1" ||
		o["@agent_pending_tool"] != "Bash" || o["@agent_pending_summary"] != "touch probe.txt" || o["@agent_pending_call"] == "" {
		t.Fatalf("PermissionRequest: %v", o)
	}
	// The hook claim outranks the idle screen in a poll cycle.
	if got := e.ls()[a.Pane]; got != "blocked/permission attn" {
		t.Fatalf("ls after the claim: %q", got)
	}

	// A subagent's event never writes the parent's state.
	e.fire(a.Pane, "claude", "SubagentStart", `{`+sess+`,"agent_id":"sub-9"}`)
	e.fire(a.Pane, "claude", "PreToolUse", `{`+sess+`,"agent_id":"sub-9","tool_name":"Read"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "blocked" {
		t.Fatalf("a subagent event moved the parent to %q", got)
	}
	if got := e.s.Option(a.Pane, "@agent_subagents"); got != "sub-9" {
		t.Errorf("@agent_subagents = %q", got)
	}
	e.fire(a.Pane, "claude", "SubagentStop", `{`+sess+`,"agent_id":"sub-9"}`)
	if got := e.s.Option(a.Pane, "@agent_subagents"); got != "" {
		t.Errorf("@agent_subagents after stop = %q", got)
	}
	// Another session's event (a teammate in the same pane) is not this pane's.
	e.fire(a.Pane, "claude", "Stop", `{"session_id":"other"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "blocked" {
		t.Fatalf("another session's Stop moved the pane to %q", got)
	}

	e.fire(a.Pane, "claude", "PostToolUse", `{`+sess+`,"tool_name":"Bash"}`)
	o = e.opts(a.Pane)
	if o["@agent_state"] != "working" || o["@agent_pending_tool"] != "" || o["@agent_detail"] != "" {
		t.Fatalf("PostToolUse: %v", o)
	}
	e.s.MustRun("set-option", "-p", "-u", "-t", a.Pane, "@agent_attention")
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	o = e.opts(a.Pane)
	if o["@agent_state"] != "idle" || o["@agent_attention"] != "1" || o["@agent_turn_at"] == "" {
		t.Fatalf("Stop: %v", o)
	}
	turn := o["@agent_turn_at"]
	// A second turn end within the dedup window (Codex's two channels) counts once.
	e.s.MustRun("set-option", "-p", "-u", "-t", a.Pane, "@agent_attention")
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	if o = e.opts(a.Pane); o["@agent_turn_at"] != turn || o["@agent_attention"] != "" {
		t.Errorf("a duplicate turn end re-raised: %v", o)
	}

	// Unmapped events, unknown agents and a missing pane are clean no-ops.
	before := e.opts(a.Pane)
	e.fire(a.Pane, "claude", "MessageDisplay", `{`+sess+`}`)
	e.fire(a.Pane, "nosuchagent", "Stop", `{}`)
	e.fire("%999", "claude", "Stop", `{"session_id":"unknown-session"}`)
	if after := e.opts(a.Pane); after["@agent_state"] != before["@agent_state"] || after["@agent_stamped_at"] != before["@agent_stamped_at"] {
		t.Errorf("a no-op wrote: %v -> %v", before, after)
	}
	// A payload that is not JSON is still the event: no fields, no crash.
	e.fire(a.Pane, "claude", "UserPromptSubmit", "not json at all")
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("non-JSON payload: %q", got)
	}

	e.fire(a.Pane, "claude", "SessionEnd", `{`+sess+`,"reason":"exit"}`)
	for k := range e.opts(a.Pane) {
		if strings.HasPrefix(k, "@agent_") {
			t.Errorf("SessionEnd left %s", k)
		}
	}
}

func TestHookAttributedToTheRegisteredPane(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("codex", claudeIdle)
	b := e.s.StartAgent("codex", claudeIdle)
	e.fire(a.Pane, "codex", "SessionStart", `{"session_id":"thr-a"}`)
	// A shared daemon runs b's... no: a's session's hook with b's $TMUX_PANE.
	e.fire(b.Pane, "codex", "UserPromptSubmit", `{"session_id":"thr-a"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("registered pane: %q", got)
	}
	if got := e.s.Option(b.Pane, "@agent_state"); got != "" {
		t.Errorf("the wrong pane was stamped: %q", got)
	}
	// Codex's notify passes the payload as the last argument.
	e.fire(a.Pane, "codex", "notify", "", `{"type":"agent-turn-complete","thread-id":"thr-a"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "idle" {
		t.Errorf("notify turn end: %q", got)
	}
	// The title side thread's spurious turn-complete carries another thread id.
	e.fire(a.Pane, "codex", "UserPromptSubmit", `{"session_id":"thr-a"}`)
	e.fire(a.Pane, "codex", "notify", "", `{"type":"agent-turn-complete","thread-id":"thr-title"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("a side thread's notify ended the turn: %q", got)
	}
}

// A session resumed in a new pane (issue 27, item 4): `claude --resume X`
// in a new pane while X's registration still stands on an old one (an ssh
// pane here, pid 0). The new claude's own SessionStart hook, which runs
// inside the new pane's tree, moves the registration there: the new pane
// takes the session and its states, the old one is cleared.
func TestResumedSessionInANewPane(t *testing.T) {
	e := newEnv(t, laneOff)
	old := e.s.StartAgent("ssh", "remote$ \n").Pane
	e.fire(old, "claude", "SessionStart", `{"session_id":"X","source":"startup"}`)
	e.fire(old, "claude", "UserPromptSubmit", `{"session_id":"X","prompt":"hi"}`)
	if got := e.s.Option(old, "@agent_state"); got != "working" {
		t.Fatalf("the old registration: state %q", got)
	}

	// The resumed claude: a process named claude that runs its
	// SessionStart hook, then paints its screen (exec keeps its pid).
	dir := filepath.Join(e.s.Dir, "resume")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	screen := writeScreen(t, e, claudeIdle)
	payload := filepath.Join(dir, "payload.json")
	if err := os.WriteFile(payload, []byte(`{"session_id":"X","source":"resume"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" +
		"HOME='" + e.home + "' XDG_RUNTIME_DIR='" + e.run + "' TMA_CONFIG= XDG_CONFIG_HOME= TMA_SOCKET_PATH='" + e.s.Socket + "' TMA_HOOK_DEBUG=1 " +
		"'" + filepath.Join(binDir, "tma-hook") + "' claude SessionStart <'" + payload + "' 2>'" + filepath.Join(dir, "hook.log") + "'\n" +
		"exec '" + fakeAgentBin(t, "claude") + "' '" + screen + "'\n"
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fresh := e.window("s", "set -m; '"+claude+"'; exec sh")
	e.s.WaitFor(func() bool { return e.s.Option(fresh, "@agent_session") == "X" }, "the resumed session registered on "+fresh)
	if pid := e.s.Option(fresh, "@agent_pid"); pid == "" || pid == "0" {
		log, _ := os.ReadFile(filepath.Join(dir, "hook.log"))
		t.Errorf("the new pane's registration has no agent pid: %q\n%s", pid, log)
	}
	for _, o := range []string{"@agent_session", "@agent_state", "@agent_name"} {
		if got := e.s.Option(old, o); got != "" {
			t.Errorf("the old pane kept %s = %q", o, got)
		}
	}
	// The session's events now land on the new pane, also from outside it.
	e.fire(fresh, "claude", "UserPromptSubmit", `{"session_id":"X","prompt":"go on"}`)
	if got := e.s.Option(fresh, "@agent_state"); got != "working" {
		t.Errorf("the new pane: state %q", got)
	}
	if got := e.s.Option(old, "@agent_state"); got != "" {
		t.Errorf("the old pane was stamped %q", got)
	}
	if got := e.ls(); got[fresh] != "working" || got[old] != "" {
		t.Errorf("ls: %v", got)
	}
}

func TestHookAndCaptureRaceBothOrders(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeBlocked)
	// Capture first, then the hook: the hook's evidence is newer and wins.
	e.expect(a.Pane, "blocked/permission attn")
	e.fire(a.Pane, "claude", "PostToolUse", `{`+sess+`}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Fatalf("hook after capture: %q", got)
	}
	// A capture older than the claim cannot overwrite it; a newer one with
	// blocker chrome on screen lands at once (a new prompt).
	if got := e.ls()[a.Pane]; got != "blocked/permission attn" {
		t.Fatalf("newer blocker chrome over a working claim: %q", got)
	}
	// Esc on a blocked prompt fires no event: the screen releases it within
	// two cycles.
	e.fire(a.Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"x"}}`)
	a.Paint(claudeIdle)
	time.Sleep(1100 * time.Millisecond) // the grace for a dialog drawn after its hook
	first := e.ls()[a.Pane]
	time.Sleep(600 * time.Millisecond)
	second := e.ls()[a.Pane]
	if first != "blocked/permission attn" || !strings.HasPrefix(second, "idle") {
		t.Fatalf("release after Esc: first %q, second %q", first, second)
	}
}

func TestClearAttention(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	b := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	// b is in another window: clearing on arrival at b clears b only, without a hook kind.
	out, _, code := e.tma("clear-attention", b.Pane)
	if code != 0 || e.s.Option(b.Pane, "@agent_attention") != "" || e.s.Option(a.Pane, "@agent_attention") != "1" {
		t.Fatalf("clear-attention %s: exit %d %q; a=%q b=%q", b.Pane, code, out, e.s.Option(a.Pane, "@agent_attention"), e.s.Option(b.Pane, "@agent_attention"))
	}
	// A split in a's window: select-pane from a to c, then the after-select-pane
	// kind clears the arrival (c) and the departure (a).
	c := strings.TrimSpace(e.s.MustRun("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", a.Pane, "sh"))
	e.s.MustRun("select-pane", "-t", a.Pane)
	e.s.MustRun("select-pane", "-t", c)
	cmd := exec.Command("sh", filepath.Join(binDir, "tma"), "-L", e.s.Name, "clear-attention", c)
	cmd.Env = append(os.Environ(), "TMA_HOOK_KIND=after-select-pane", "TMUX=", "PATH="+binDir+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if got := e.s.Option(a.Pane, "@agent_attention"); got != "" {
		t.Errorf("departed pane kept its mark: %q", got)
	}
}

func TestRegisteredAgentThatLeftIsCleaned(t *testing.T) {
	e := newEnv(t, "")
	// A hook-only agent (a name no process matches) registered with a pid.
	a := e.s.StartAgent("claude", claudeIdle)
	pid := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{pane_pid}"))
	e.fire(a.Pane, "claude", "SessionStart", `{"session_id":"s-9"}`)
	e.s.MustRun("set-option", "-p", "-t", a.Pane, "@agent_pid", pid)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{"session_id":"s-9"}`)
	if got := e.ls()[a.Pane]; got != "working" {
		t.Fatalf("registered pane: %q", got)
	}
	// The agent exits; the pane's shell takes over.
	e.s.MustRun("send-keys", "-t", a.Pane, "C-\\")
	e.s.WaitFor(func() bool {
		return strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{pane_current_command}")) != "claude"
	}, "agent exit")
	e.s.MustRun("set-option", "-p", "-t", a.Pane, "@agent_pid", "999999")
	if _, ok := e.ls()[a.Pane]; ok {
		t.Fatal("a registration whose pid left the pane still has a row")
	}
	if o := e.opts(a.Pane); o["@agent_session"] != "" || o["@agent_state"] != "" {
		t.Errorf("stamps kept: %v", o)
	}
}

// Hooks spawned without waiting (tma's OpenCode plugin) can reach tmux out of
// order; the event time they carry decides.
func TestHookEventTimeOrdersClaims(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("opencode", claudeIdle)
	now := time.Now().UnixMilli()
	e.fire(a.Pane, "opencode", "stop", `{"tma_at_ms":`+itoa(now-10)+`}`)
	e.fire(a.Pane, "opencode", "user-prompt-submit", `{"tma_at_ms":`+itoa(now-20)+`}`) // emitted first, stamped last
	if got := e.s.Option(a.Pane, "@agent_state"); got != "idle" {
		t.Fatalf("an earlier busy overwrote the later idle: %q", got)
	}
}

// Any focus change nudges the watchers named in @tma_watch_pid, even with no
// mark to clear, and only processes that are still a tma-pick. A copy of
// sleep named tma-pick stands in for a watcher: SIGUSR1's default action
// ends it, which is what the test observes.
func TestClearAttentionNudgesWatchers(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.ls()
	sleep := testkit.Need(t, "sleep")
	body, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(t.TempDir(), "tma-pick")
	if err := os.WriteFile(fake, body, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each process is waited for once, by its own goroutine.
	start := func(path string) (*exec.Cmd, chan error) {
		c := exec.Command(path, "30")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		t.Cleanup(func() { _ = c.Process.Kill(); <-done })
		return c, done
	}
	watcher, watcherDone := start(fake)
	other, otherDone := start(sleep)
	b := strings.TrimSpace(e.s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "sh"))
	e.s.MustRun("set-option", "-p", "-t", a.Pane, "@tma_watch_pid", strconv.Itoa(watcher.Process.Pid))
	e.s.MustRun("set-option", "-p", "-t", b, "@tma_watch_pid", strconv.Itoa(other.Process.Pid))
	if _, _, code := e.tma("clear-attention", a.Pane); code != 0 {
		t.Fatalf("clear-attention exit %d", code)
	}
	select {
	case err := <-watcherDone:
		watcherDone <- err // for the cleanup
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGUSR1 {
			t.Fatalf("watcher ended with %v, want SIGUSR1", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher was not nudged")
	}
	select {
	case err := <-otherDone:
		otherDone <- err
		t.Fatalf("a process that is not a tma-pick was signalled: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
}
