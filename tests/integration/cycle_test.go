package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/record"

	"github.com/tmaproject/tma/lib/testkit"
)

func TestStatesThroughTheDispatcher(t *testing.T) {
	e := newEnv(t, "[fold]\ndwell_secs = 1\n")
	blocked := e.s.StartAgent("claude", claudeBlocked)
	working := e.s.StartAgent("claude", claudeWorking)
	idle := e.s.StartAgent("claude", claudeIdle)
	quote := e.s.StartAgent("claude", claudeQuote)

	rows := e.ls()
	want := map[string]string{blocked.Pane: "blocked/permission attn", working.Pane: "working", idle.Pane: "idle", quote.Pane: "idle"}
	for p, w := range want {
		if rows[p] != w {
			t.Errorf("%s: got %q want %q (all: %v)", p, rows[p], w, rows)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("rows for non-agent panes: %v", rows)
	}
	// The verdict lives in tmux: any reader sees it with no tma process.
	if got := e.s.Option(blocked.Pane, "@agent_state"); got != "blocked" {
		t.Errorf("@agent_state = %q", got)
	}
	if got := e.s.Option(blocked.Pane, "@agent_attention"); got != "1" {
		t.Errorf("@agent_attention = %q", got)
	}
	if got := e.s.Option(working.Pane, "@agent_attention"); got != "" {
		t.Errorf("working pane has attention %q", got)
	}
	for _, o := range []string{"@agent_since", "@agent_evidence_at", "@agent_stamped_at"} {
		if v := e.s.Option(blocked.Pane, o); len(v) != 13 {
			t.Errorf("%s = %q, want epoch ms", o, v)
		}
	}

	// Done: working -> idle after the dwell raises attention.
	working.Paint(claudeIdle)
	if got := e.ls()[working.Pane]; got != "working" {
		t.Errorf("idle chrome published before the dwell: %q", got)
	}
	e.expect(working.Pane, "idle attn")

	out, _, code := e.tma("status", "--format", "plain")
	if code != 0 || strings.TrimSpace(out) != "⚑1 ✓1 ○2" {
		t.Errorf("status plain = %q (exit %d)", out, code)
	}
	out, _, _ = e.tma("status")
	if strings.TrimSpace(out) != "#[range=user|tma:blocked]#[fg=red]⚑1#[norange] #[range=user|tma:done]#[fg=magenta]✓1#[norange] #[range=user|tma:idle]#[fg=green]○2#[norange]" {
		t.Errorf("status tmux = %q", out)
	}
	out, _, _ = e.tma("status", "--format", "json")
	if strings.TrimSpace(out) != `{"schema":1,"blocked":1,"working":0,"done":1,"idle":2,"unknown":0}` {
		t.Errorf("status json = %q", out)
	}
	// Window and session rollups.
	if got := strings.TrimSpace(e.s.MustRun("show-options", "-qv", "-t", "s", "@agent_session_summary")); got != "blocked:1 idle:3" {
		t.Errorf("@agent_session_summary = %q", got)
	}
	if got := strings.TrimSpace(e.s.MustRun("show-options", "-wqv", "-t", blocked.Pane, "@agent_summary")); got != "blocked:1" {
		t.Errorf("@agent_summary = %q", got)
	}

	// ls order: blocked, done, working, idle, unknown; then locator.
	out, _, _ = e.tma("ls")
	var order []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		order = append(order, strings.Split(l, "\t")[0])
	}
	if strings.Join(order, " ") != strings.Join([]string{blocked.Pane, working.Pane, idle.Pane, quote.Pane}, " ") {
		t.Errorf("ls order = %v", order)
	}

	// Selectors narrow the output only.
	out, _, _ = e.tma("ls", "--state", "done")
	if !strings.HasPrefix(out, working.Pane+"\t") || strings.Count(out, "\n") != 1 {
		t.Errorf("--state done = %q", out)
	}
	out, _, _ = e.tma("ls", "--state", "idle", "--json")
	var doc record.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Agents) != 3 {
		t.Errorf("--state idle --json = %q (%v)", out, err)
	}
	_, errs, code := e.tma("ls", "--state", "bogus")
	if code != 2 || !strings.Contains(errs, "idle, working, blocked, unknown, done") {
		t.Errorf("bad state: exit %d, %q", code, errs)
	}
}

func TestScrollFreezesAndCopyModeDoesNot(t *testing.T) {
	e := newEnv(t, "")
	// A screen taller than the pane leaves scrollback to scroll into.
	tall := screenOf("✳ Probe", strings.Repeat("earlier output\n", 40)+strings.SplitN(claudeWorking, "---\n", 2)[1])
	a := e.s.StartAgent("claude", tall)
	e.expect(a.Pane, "working")

	// Copy mode at offset 0 does not freeze.
	e.s.MustRun("copy-mode", "-t", a.Pane)
	a.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")

	// Scrolled up by one: frozen, even though the live screen changes.
	e.s.MustRun("send-keys", "-X", "-t", a.Pane, "cancel")
	a.Paint(claudeWorking)
	e.expect(a.Pane, "working attn")
	e.s.MustRun("copy-mode", "-t", a.Pane)
	e.s.MustRun("send-keys", "-X", "-t", a.Pane, "scroll-up")
	if pos := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{scroll_position}")); pos == "0" || pos == "" {
		t.Fatalf("no scrollback to scroll into (scroll_position=%q)", pos)
	}
	a.Paint(claudeBlocked)
	for i := 0; i < 2; i++ {
		if got := e.ls()[a.Pane]; got != "working attn" {
			t.Fatalf("scrolled pane moved to %q", got)
		}
	}
	e.s.MustRun("send-keys", "-X", "-t", a.Pane, "cancel")
	e.expect(a.Pane, "blocked/permission attn")
}

func TestForegroundNotAgentCapsAtUnknown(t *testing.T) {
	e := newEnv(t, "")
	bin := fakeAgentBin(t, "claude")
	screen := writeScreen(t, e, claudeBlocked)
	// Job control on: the agent runs as a background job, sleep (standing in
	// for vim) holds the terminal.
	out := e.s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", "set -m; "+bin+" "+screen+" & sleep 1; exec sleep 600")
	pane := strings.TrimSpace(out)
	e.s.WaitFor(func() bool {
		return strings.TrimSpace(e.s.MustRun("display", "-p", "-t", pane, "#{pane_current_command}")) == "sleep"
	}, "sleep in the foreground")
	e.expect(pane, "unknown")
	if got := e.s.Option(pane, "@agent_source"); got != "process" {
		t.Errorf("@agent_source = %q, want process", got)
	}
}

func TestIgnoredRemoteAndGone(t *testing.T) {
	e := newEnv(t, "")
	ignored := e.s.StartAgent("claude", claudeBlocked)
	e.s.MustRun("set-option", "-p", "-t", ignored.Pane, "@agent_ignore", "manual")
	remote := e.s.StartAgent("ssh", claudeBlocked)
	registered := e.s.StartAgent("docker", claudeBlocked)
	for k, v := range map[string]string{"@agent_name": "claude", "@agent_session": "sess-1", "@agent_state": "working",
		"@agent_source": "hook", "@agent_evidence_at": "1700000000000", "@agent_since": "1700000000000", "@agent_stamped_at": "1700000000000"} {
		e.s.MustRun("set-option", "-p", "-t", registered.Pane, k, v)
	}
	rows := e.ls()
	if _, ok := rows[ignored.Pane]; ok {
		t.Errorf("ignored pane listed: %v", rows)
	}
	if got := e.s.Option(ignored.Pane, "@agent_state"); got != "" {
		t.Errorf("ignored pane stamped %q", got)
	}
	if _, ok := rows[remote.Pane]; ok {
		t.Errorf("unregistered remote pane listed: %v", rows)
	}
	if rows[registered.Pane] != "working" {
		t.Errorf("registered remote pane = %q, want its held hook claim", rows[registered.Pane])
	}
	if got := e.s.Option(registered.Pane, "@agent_stamped_at"); got != "1700000000000" {
		t.Errorf("the cycle rewrote a remote pane's stamps: stamped_at = %q", got)
	}

	// An agent that exits leaves no row and no stamps (but keeps a mute).
	gone := e.s.StartAgent("claude", claudeIdle)
	e.expect(gone.Pane, "idle")
	e.s.MustRun("set-option", "-p", "-t", gone.Pane, "@agent_mute_until", "99999999999999")
	e.s.MustRun("send-keys", "-t", gone.Pane, "C-\\")
	e.s.WaitFor(func() bool {
		return strings.TrimSpace(e.s.MustRun("display", "-p", "-t", gone.Pane, "#{pane_current_command}")) != "claude"
	}, "agent exit")
	if _, ok := e.ls()[gone.Pane]; ok {
		t.Errorf("exited agent still listed")
	}
	if got := e.s.Option(gone.Pane, "@agent_state"); got != "" {
		t.Errorf("exited agent's state kept: %q", got)
	}
	if got := e.s.Option(gone.Pane, "@agent_mute_until"); got == "" {
		t.Errorf("the mute was cleared with the stamps")
	}
}

func TestHostileTitleAndForeignState(t *testing.T) {
	e := newEnv(t, "")
	hostile := e.s.StartAgent("claude", screenOf("x\t#{pane_id} '; kill-server; \"", "\n❯ 1. Yes\n"))
	foreign := e.s.StartAgent("claude", claudeIdle)
	e.s.MustRun("set-option", "-p", "-t", foreign.Pane, "@agent_state", "thinking")
	rows := e.ls()
	// A foreign writer's token outside the closed set: the pane drops out of
	// every surface, and neither a cycle nor a hook touches its options.
	if _, listed := rows[foreign.Pane]; rows[hostile.Pane] != "blocked/permission attn" || listed {
		t.Fatalf("rows = %v", rows)
	}
	e.fire(foreign.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	e.ls()
	if o := e.opts(foreign.Pane); len(o) != 1 || o["@agent_state"] != "thinking" {
		t.Errorf("the foreign pane was written: %v", o)
	}
	if out, _, _ := e.tma("status", "--format", "plain"); strings.Contains(out, "○") || strings.Contains(out, "●") {
		t.Errorf("the foreign pane is counted: %q", out)
	}
	out, _, _ := e.tma("ls", "--json")
	var doc record.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, a := range doc.Agents {
		if a.Pane == hostile.Pane && !strings.Contains(a.Title, "#{pane_id}") {
			t.Errorf("title mangled: %q", a.Title)
		}
	}
	if _, err := e.s.Run("has-session", "-t", "s"); err != nil {
		t.Fatal("the server died: a title reached a command line")
	}
	// The plain table keeps its 12 columns and draws no control.
	plain, _, _ := e.tma("ls", "--pane", hostile.Pane)
	line := strings.TrimSuffix(plain, "\n")
	if f := strings.Split(line, "\t"); len(f) != 12 || !strings.Contains(f[6], "#{pane_id}") {
		t.Errorf("ls line %q: %d columns", line, len(f))
	}
	if strings.ContainsFunc(line, func(r rune) bool { return r != '\t' && record.IsControl(r) }) {
		t.Errorf("ls draws a control: %q", line)
	}
}

func TestNoServer(t *testing.T) {
	e := newEnv(t, "")
	e.s.MustRun("kill-server")
	time.Sleep(50 * time.Millisecond)
	out, errs, code := e.tma("ls")
	if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no tmux server running on") || !strings.Contains(errs, e.s.Name) {
		t.Errorf("ls: exit %d out %q err %q", code, out, errs)
	}
	out, errs, code = e.tma("status")
	if out != "" || errs != "" || code == 0 {
		t.Errorf("status: exit %d out %q err %q", code, out, errs)
	}
}

func TestExplainAndPaneScope(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	b := e.s.StartAgent("claude", claudeIdle)
	out, _, code := e.tma("ls", "--pane", b.Pane)
	if code != 0 || !strings.HasPrefix(out, b.Pane+"\tclaude\tidle") || strings.Count(out, "\n") != 1 {
		t.Fatalf("ls --pane: %q", out)
	}
	out, errs, code := e.tma("debug", "explain", a.Pane)
	if code != 0 {
		t.Fatalf("explain: exit %d %s", code, errs)
	}
	for _, want := range []string{"pane      " + a.Pane + "  (s:", "agent     claude (pid ", "foreground_is_agent=true", "[match] option-1-cursor", "[ - ]   prompt-box", "verdict   blocked/permission"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = e.tma("debug", "explain", "--json", a.Pane)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("explain --json: %v\n%s", err, out)
	}
	keys := testkit.KeyOrder(t, out)
	want := "schema pane locator command title flags agent identity agent_pid foreground_is_agent out_of_scope ignored procs prior evidence rules verdict"
	if keys != want {
		t.Errorf("explain --json keys:\n got %s\nwant %s", keys, want)
	}
	var v struct {
		State           string  `json:"state"`
		Detail          *string `json:"detail"`
		Action          string  `json:"action"`
		WinningEvidence struct {
			Source, Label string
			At            int64
		} `json:"winning_evidence"`
	}
	if err := json.Unmarshal(doc["verdict"], &v); err != nil || v.State != "blocked" || v.WinningEvidence.Source != "capture" || v.WinningEvidence.Label == "" {
		t.Errorf("verdict = %s (%v)", doc["verdict"], err)
	}
	// A shell pane explains why it is not an agent.
	out, _, _ = e.tma("debug", "explain", "%0")
	if !strings.Contains(out, "agent     (none — no manifest process_names matched)") {
		t.Errorf("shell pane explain:\n%s", out)
	}
	_, errs, code = e.tma("debug", "explain", "%999")
	if code != 3 || !strings.Contains(errs, "no such pane") {
		t.Errorf("explain of a missing pane: exit %d %q", code, errs)
	}
}

func TestWarmCycleSkipsCaptures(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	// window_activity is whole seconds and activity in the stamp's own second
	// counts: one more read once that second is past settles the stamp.
	time.Sleep(1100 * time.Millisecond)
	e.ls()
	stamped := e.s.Option(a.Pane, "@agent_stamped_at")
	e.ls()
	e.ls()
	if got := e.s.Option(a.Pane, "@agent_stamped_at"); got != stamped {
		t.Errorf("a quiet idle pane was re-read and re-stamped: %s -> %s", stamped, got)
	}
	// Output in the window makes the next cycle read the screen again.
	a.Paint(claudeWorking)
	e.expect(a.Pane, "working")
}

func TestScanIntoStampFoldsItself(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	cmd := exec.Command("sh", "-c", `"$BIN/tma-scan" -L "$SOCK" | "$BIN/tma-stamp" -L "$SOCK"`)
	cmd.Env = append(os.Environ(), "BIN="+binDir, "SOCK="+e.s.Name, "HOME="+e.home, "TMA_CONFIG=", "XDG_CONFIG_HOME=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"kind":"row"`) || !strings.Contains(string(out), `"state":"blocked"`) {
		t.Errorf("rows = %s", out)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "blocked" {
		t.Errorf("@agent_state = %q", got)
	}
	if got := strings.TrimSpace(e.s.MustRun("show-options", "-gqv", "@tma_last_poll")); len(got) != 13 {
		t.Errorf("@tma_last_poll = %q", got)
	}
}

// TestRollupOfAKilledAgentClears: a plain shell pane is not in the record
// stream, but a window whose agent pane was killed still sends one of its
// shells, so the stale @agent_summary (and the session's) is cleared.
func TestRollupOfAKilledAgentClears(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	shell := strings.TrimSpace(e.s.MustRun("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", a.Pane, "sh"))
	e.expect(a.Pane, "idle")
	if got := strings.TrimSpace(e.s.MustRun("show-options", "-wqv", "-t", shell, "@agent_summary")); got != "idle:1" {
		t.Fatalf("@agent_summary = %q, want idle:1", got)
	}
	// The scan's stream leaves the shell out while the agent carries the window.
	scan := exec.Command(filepath.Join(binDir, "tma-scan"), "-L", e.s.Name)
	scan.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=")
	b, err := scan.Output()
	out := string(b)
	if err != nil || strings.Contains(out, `"pane":"`+shell+`"`) || !strings.Contains(out, `"pane":"`+a.Pane+`"`) {
		t.Fatalf("scan stream (%v) carries the shell %s or misses the agent:\n%s", err, shell, out)
	}
	e.s.MustRun("kill-pane", "-t", a.Pane)
	if rows := e.ls(); len(rows) != 0 {
		t.Fatalf("rows after the kill: %v", rows)
	}
	if got := strings.TrimSpace(e.s.MustRun("show-options", "-wqv", "-t", shell, "@agent_summary")); got != "" {
		t.Errorf("@agent_summary after the agent pane was killed = %q, want empty", got)
	}
	if got := strings.TrimSpace(e.s.MustRun("show-options", "-qv", "-t", shell, "@agent_session_summary")); got != "" {
		t.Errorf("@agent_session_summary after the agent pane was killed = %q, want empty", got)
	}
}
