package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serverPID is the test server's pid.
func (e *env) serverPID() int {
	e.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(e.s.MustRun("display", "-p", "#{pid}")))
	if err != nil {
		e.t.Fatal(err)
	}
	return pid
}

// A stopped server (SIGSTOP: the socket still accepts, nobody answers): a
// hook exits 0 within 3 s; ls and every status format but the status
// line's own fail with a clear message within their bound.
func TestStoppedServer(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.ls()
	pid := e.serverPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)

	start := time.Now()
	cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", "PreToolUse")
	cmd.Env = e.hookEnv(a.Pane)
	cmd.Stdin = strings.NewReader(`{` + sess + `,"tool_name":"Bash"}`)
	if err := cmd.Run(); err != nil {
		t.Errorf("hook: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the hook took %s on a stopped server", d)
	}
	for _, args := range [][]string{{"ls"}, {"status", "--format", "json"}, {"status", "--format", "prom"}, {"status", "--format", "plain"}} {
		start := time.Now()
		out, errs, code := e.tma(args...)
		if code == 0 || out != "" || !strings.Contains(errs, "did not answer within") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v took %s", args, d)
		}
	}
	// The status line's own format stays silent (and still fails).
	out, errs, code := e.tma("status")
	if code == 0 || out != "" || errs != "" {
		t.Errorf("status (tmux format): exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// An absent tmux binary: a clear error naming it, and a hook that exits 0.
func TestAbsentTmuxBinary(t *testing.T) {
	e := newEnv(t, laneOff)
	t.Setenv("TMA_TMUX_BIN", filepath.Join(t.TempDir(), "no-tmux"))
	_, errs, code := e.tma("ls")
	if code != 1 || !strings.Contains(errs, "no-tmux") || !strings.Contains(errs, "not found") {
		t.Errorf("ls: exit %d: %q", code, errs)
	}
	cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", "Stop")
	cmd.Env = append(e.hookEnv("%0"), "TMA_TMUX_BIN="+filepath.Join(t.TempDir(), "no-tmux"))
	cmd.Stdin = strings.NewReader(`{}`)
	if err := cmd.Run(); err != nil {
		t.Errorf("hook: %v", err)
	}
}

// A hook's one write keeps the window and session rollups current: no
// cycle runs between the claims and the reads. Blocked comes first.
func TestHookUpdatesRollups(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	b := e.s.StartAgent("claude", claudeIdle)
	e.s.MustRun("join-pane", "-d", "-s", b.Pane, "-t", a.Pane) // two agents in one window
	c := e.s.StartAgent("claude", claudeIdle)
	for _, p := range []string{a.Pane, b.Pane, c.Pane} {
		e.expect(p, "idle")
	}
	rollups := func() (string, string) {
		w := strings.TrimSpace(e.s.MustRun("show-options", "-wqv", "-t", a.Pane, "@agent_summary"))
		s := strings.TrimSpace(e.s.MustRun("show-options", "-qv", "-t", a.Pane, "@agent_session_summary"))
		return w, s
	}
	if w, s := rollups(); w != "idle:2" || s != "idle:3" {
		t.Fatalf("after a cycle: %q / %q", w, s)
	}
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{"session_id":"s-a","prompt":"hi"}`)
	e.fire(b.Pane, "claude", "UserPromptSubmit", `{"session_id":"s-b","prompt":"hi"}`)
	e.fire(b.Pane, "claude", "PermissionRequest", `{"session_id":"s-b","tool_name":"Bash","tool_input":{"command":"x"}}`)
	e.fire(c.Pane, "claude", "UserPromptSubmit", `{"session_id":"s-c","prompt":"hi"}`)
	if w, s := rollups(); w != "blocked:1 working:1" || s != "blocked:1 working:2" {
		t.Errorf("after the hooks alone: window %q, session %q", w, s)
	}
	// The next cycle agrees, so it writes no rollup of its own.
	e.ls()
	if w, s := rollups(); w != "blocked:1 working:1" || s != "blocked:1 working:2" {
		t.Errorf("after a cycle: window %q, session %q", w, s)
	}
}

// A pane the user opted out of (@agent_ignore) gets no tuple from a hook.
func TestHookLeavesIgnoredPaneAlone(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_ignore", "1")
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	o := e.opts(a.Pane)
	delete(o, "@agent_ignore")
	if len(o) != 0 {
		t.Errorf("an ignored pane was written: %v", o)
	}
}

// A payload far over the 1 MiB the hook reads is drained, not cut off: the
// agent's write end never meets a closed pipe, and the hook stays in bound.
func TestHookDrainsAHugePayload(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", "PostToolUse")
	cmd.Env = e.hookEnv(a.Pane)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	big := `{"session_id":"s-1","tool_name":"Bash","tool_response":"` + strings.Repeat("x", 11<<20) + `"}`
	_, werr := io.WriteString(in, big)
	in.Close()
	if werr != nil {
		t.Errorf("writing the payload: %v (the hook stopped reading)", werr)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("hook: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the hook took %s", d)
	}
}

// tma event --pane names its target: a session registered on another pane
// does not pull the event there (only a $TMUX_PANE that hosts no agent does,
// the shared-daemon case).
func TestEventPaneIsTheTarget(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	b := e.s.StartAgent("claude", claudeIdle)
	e.expect(b.Pane, "idle")
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	cmd := exec.Command("dash", filepath.Join(binDir, "tma"), "event", "--agent", "claude", "--kind", "UserPromptSubmit", "--pane", b.Pane)
	cmd.Env = e.hookEnv(a.Pane)
	cmd.Stdin = strings.NewReader(`{` + sess + `,"prompt":"hi"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if got := e.s.Option(b.Pane, "@agent_state"); got != "working" {
		t.Errorf("--pane %s: state %q", b.Pane, got)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "idle" {
		t.Errorf("the registered pane %s took the event: %q", a.Pane, got)
	}
	// $TMUX_PANE on a pane with no agent: the session's pane takes it.
	sh := e.window("s", "sleep 60")
	e.fire(sh, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("a foreign $TMUX_PANE: the session's pane is %q", got)
	}
	if got := e.s.Option(sh, "@agent_state"); got != "" {
		t.Errorf("the foreign pane was stamped %q", got)
	}
}

// A backward clock step: a tuple dated 60 s in the future is settled, so
// neither a capture nor a hook loses its guard to it until the clock
// catches up.
func TestClockSteppedBack(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	future := itoa(time.Now().Add(60 * time.Second).UnixMilli())
	for _, o := range []string{"@agent_stamped_at", "@agent_evidence_at", "@agent_since"} {
		e.s.MustRun("set", "-p", "-t", a.Pane, o, future)
	}
	a.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	for _, o := range []string{"@agent_stamped_at", "@agent_evidence_at"} {
		e.s.MustRun("set", "-p", "-t", a.Pane, o, future)
	}
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("a hook lost to a future-dated tuple: state %q", got)
	}
}

// A backward clock step under a hook claim (issue 27, item 2): a working
// claim dated 60 s in the future does not hold against a permission prompt
// until the clock catches up; the prompt lands at the next capture.
func TestClockSteppedBackUnderAHookClaim(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	if got := e.s.Option(a.Pane, "@agent_source"); got != "hook" {
		t.Fatalf("the claim is not a hook's: source %q", got)
	}
	future := itoa(time.Now().Add(60 * time.Second).UnixMilli())
	for _, o := range []string{"@agent_stamped_at", "@agent_evidence_at", "@agent_since"} {
		e.s.MustRun("set", "-p", "-t", a.Pane, o, future)
	}
	a.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	if since := e.s.Option(a.Pane, "@agent_since"); since >= future {
		t.Errorf("@agent_since stayed in the future: %s", since)
	}
}

// A select-pane in a window nobody is looking at clears only the pane it
// left: the arrival is not seen (G-10, M547).
func TestSelectPaneInAnUnseenWindow(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	c := strings.TrimSpace(e.s.MustRun("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", a.Pane, "sh"))
	e.s.MustRun("select-pane", "-t", a.Pane)
	other := e.window("s", "sleep 60")
	e.s.MustRun("select-window", "-t", other)
	for _, p := range []string{a.Pane, c} {
		e.s.MustRun("set", "-p", "-t", p, "@agent_attention", "1")
	}
	// Move w1's active pane from a to c without making w1 current.
	e.s.MustRun("select-pane", "-t", c)
	// Asked of c's own window: a bare "s" target resolves by window-name
	// prefix first, and automatic-rename ("sh", "sleep") makes that race.
	if cur := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", c, "#{window_active}")); cur != "0" {
		t.Fatalf("tmux made the window current on select-pane (window_active %q): the scenario needs an unseen window", cur)
	}
	cmd := exec.Command("sh", filepath.Join(binDir, "tma"), "-L", e.s.Name, "clear-attention", c)
	cmd.Env = append(os.Environ(), "TMA_HOOK_KIND=after-select-pane", "TMUX=", "PATH="+binDir+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if got := e.s.Option(a.Pane, "@agent_attention"); got != "" {
		t.Errorf("the departed pane kept its mark")
	}
	if got := e.s.Option(c, "@agent_attention"); got != "1" {
		t.Errorf("the arrival in an unseen window was cleared")
	}
}

// A broken user manifest shadowing a bundled agent: the hook falls back to
// the bundled one, as ls does, and doctor names the skipped file.
func TestHookFallsBackOverABrokenUserManifest(t *testing.T) {
	e := newEnv(t, laneOff)
	b, err := os.ReadFile(filepath.Join("..", "..", "manifests", "agents", "claude.toml"))
	if err != nil {
		t.Fatal(err)
	}
	broken := regexp.MustCompile(`matcher = '[^']*'`).ReplaceAllLiteralString(string(b), `matcher = '([unclosed'`)
	dir := filepath.Join(e.home, ".config", "tma", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "claude.toml"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("the hook dropped the event: state %q", got)
	}
	out, _, _ := e.tma("doctor")
	if !strings.Contains(out, filepath.Join(dir, "claude.toml")+": hooks.map[") || !strings.Contains(out, "bad regex") {
		t.Errorf("doctor does not name the skipped manifest:\n%s", out)
	}
}

// A broken user manifest is named once by a pipeline, not once per stage.
func TestPipelineWarnsOnce(t *testing.T) {
	e := newEnv(t, "")
	dir := filepath.Join(e.home, ".config", "tma", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "claude.toml"), []byte("min_engine_version = \"0.1\"\n[capture]\ncolour = \"red\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.s.StartAgent("claude", claudeBlocked)
	_, errs, code := e.tma("ls")
	if code != 0 || strings.Count(errs, "manifest skipped") != 1 || !strings.HasPrefix(errs, "tma: warning: manifest skipped: ") {
		t.Errorf("ls: exit %d, stderr %q", code, errs)
	}
}

// [[agent]] enabled = false takes the agent off every surface, its
// hook-registered panes included.
func TestDisabledAgentDropsRegisteredPanes(t *testing.T) {
	e := newEnv(t, laneOff+"[[agent]]\nname = \"claude\"\nenabled = false\n")
	sh := e.window("s", "sleep 60")
	cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", "SessionStart")
	cmd.Env = append(e.hookEnv(sh), "TMA_CONFIG=") // no config: register as a user without the override would
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(`{` + sess + `,"source":"startup"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if e.s.Option(sh, "@agent_name") != "claude" {
		t.Fatalf("no registration to test with: %v", e.opts(sh))
	}
	if rows := e.ls(); len(rows) != 0 {
		t.Errorf("a disabled agent's registered pane is listed: %v", rows)
	}
}

// ls --debug-timing says what the cycle cost and which panes were captured
// or capture-skipped; the rows are ls's as ever.
func TestLsDebugTiming(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	// A quiet pane is skipped once its stamp's second has passed.
	var out, errs string
	var code int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		out, errs, code = e.tma("ls", "--debug-timing")
		if code != 0 || !strings.Contains(out, a.Pane+"\tclaude\tidle") {
			t.Fatalf("ls --debug-timing: exit %d\n%s%s", code, out, errs)
		}
		if strings.Contains(errs, "tma: timing: "+a.Pane+" claude capture-skipped (quiet)\n") || time.Now().After(deadline) {
			break
		}
	}
	if !regexp.MustCompile(`(?m)^tma: timing: list \d+\.\d ms, process walk \d+\.\d ms, capture \d+\.\d ms \(0 of 1 agent panes\)$`).MatchString(errs) ||
		!strings.Contains(errs, "tma: timing: "+a.Pane+" claude capture-skipped (quiet)\n") {
		t.Errorf("timing:\n%s", errs)
	}
	a.Paint(claudeWorking)
	_, errs, _ = e.tma("ls", "--debug-timing")
	if !strings.Contains(errs, "tma: timing: "+a.Pane+" claude captured\n") {
		t.Errorf("timing after a repaint:\n%s", errs)
	}
}
