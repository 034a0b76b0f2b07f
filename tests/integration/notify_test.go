package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// notifyEnv is an env whose [notify] command records every payload and its
// TMA_* environment, one file pair per fire, and logs to notify.jsonl.
type notifyEnv struct {
	*env
	dir string
}

func newNotifyEnv(t *testing.T, extra string) *notifyEnv {
	t.Helper()
	dir := t.TempDir()
	// Written aside and renamed, so a reader never sees a half-written file.
	cmd := `n=$(date +%s%N)$$; env | grep '^TMA_' | sort >"` + dir + `/.env-$n"; cat >"` + dir + `/.payload-$n"; ` +
		`mv "` + dir + `/.env-$n" "` + dir + `/env-$n"; mv "` + dir + `/.payload-$n" "` + dir + `/payload-$n.json"`
	cfg := laneOff + "[notify]\non = [\"blocked\", \"done\"]\ncommand = '''" + cmd + "'''\nlog = \"~/state/notify.jsonl\"\n" + extra
	return &notifyEnv{env: newEnv(t, cfg), dir: dir}
}

// payloads waits up to d for at least n payloads, then returns them all.
func (e *notifyEnv) payloads(n int, d time.Duration) []map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		files, _ := filepath.Glob(filepath.Join(e.dir, "payload-*.json"))
		if len(files) >= n || time.Now().After(deadline) {
			var out []map[string]any
			for _, f := range files {
				b, _ := os.ReadFile(f)
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					e.t.Fatalf("%s: %v: %q", f, err, b)
				}
				out = append(out, m)
			}
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *notifyEnv) logLines() []string {
	b, _ := os.ReadFile(filepath.Join(e.home, "state", "notify.jsonl"))
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// The daemonless path: a hook with from_event fires the episode it opens,
// once, on every sink; the next hook of the same episode fires nothing.
func TestNotifyFromEvent(t *testing.T) {
	e := newNotifyEnv(t, "from_event = true\nbell = true\nosc = true\nosc_777 = true\n")
	a := e.s.StartAgent("claude", claudeWorking)
	rec := filepath.Join(e.s.Dir, "pane-output")
	e.s.MustRun("pipe-pane", "-O", "-t", a.Pane, "cat >"+rec)
	c := e.attach("s")
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	if got := e.payloads(0, 0); len(got) != 0 {
		t.Fatalf("working fired: %v", got)
	}
	out := e.fire(a.Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"touch x"}}`)
	ps := e.payloads(1, 5*time.Second)
	if len(ps) != 1 {
		t.Fatalf("want one payload, got %d\nhook said: %s", len(ps), out)
	}
	p := ps[0]
	if p["schema"] != 2.0 || p["agent"] != "claude" || p["pane"] != a.Pane || p["state"] != "blocked" || p["session"] != "s-1" || p["locator"] == nil {
		t.Errorf("payload %v", p)
	}
	if _, ok := p["title"]; ok {
		t.Errorf("title sent without include_title: %v", p)
	}
	envs, _ := filepath.Glob(filepath.Join(e.dir, "env-*"))
	if len(envs) != 1 {
		t.Fatalf("env files %v", envs)
	}
	b, _ := os.ReadFile(envs[0])
	for _, want := range []string{"TMA_AGENT=claude\n", "TMA_STATE=blocked\n", "TMA_PANE=" + a.Pane + "\n", "TMA_SESSION=s-1\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("env lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "TMA_TITLE=") {
		t.Errorf("TMA_TITLE set without include_title")
	}
	// The log line, the marker, the message on the client, the tty bytes.
	if l := e.logLines(); len(l) != 1 || !strings.HasPrefix(l[0], `{"schema":2,"at":`) {
		t.Errorf("log %q", l)
	}
	if st, err := os.Stat(filepath.Join(e.home, "state", "notify.jsonl")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log mode: %v %v", st, err)
	}
	if e.opts(a.Pane)["@agent_notified_at"] == "" {
		t.Errorf("no marker: %v", e.opts(a.Pane))
	}
	e.s.WaitFor(func() bool { return c.seen("tma: claude blocked") }, "the message on the attached client")
	e.s.WaitFor(func() bool {
		b, _ := os.ReadFile(rec)
		return strings.Contains(string(b), "\a\x1bPtmux;\x1b\x1b]9;claude blocked\a\x1b\\\x1bPtmux;\x1b\x1b]777;notify;claude;blocked\a\x1b\\")
	}, "the bell and OSC bytes in the pane's output")

	// The same episode again (a second hook, a cycle): nothing more.
	e.fire(a.Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"touch x"}}`)
	e.ls()
	if got := e.payloads(2, time.Second); len(got) != 1 {
		t.Errorf("the episode fired %d times", len(got))
	}
	// done: the turn ends (working -> idle with attention).
	e.fire(a.Pane, "claude", "PostToolUse", `{`+sess+`,"tool_name":"Bash"}`)
	e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
	ps = e.payloads(2, 5*time.Second)
	states := map[any]int{}
	for _, p := range ps {
		states[p["state"]]++
	}
	if states["blocked"] != 1 || states["done"] != 1 {
		t.Errorf("fires by state %v", states)
	}
}

// Hooks racing on one new episode: exactly one fires.
func TestNotifyRacingHooks(t *testing.T) {
	e := newNotifyEnv(t, "from_event = true\n")
	a := e.s.StartAgent("claude", claudeWorking)
	e.fire(a.Pane, "claude", "UserPromptSubmit", `{`+sess+`,"prompt":"hi"}`)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", "PermissionRequest")
			cmd.Env = e.hookEnv(a.Pane)
			cmd.Stdin = strings.NewReader(`{` + sess + `,"tool_name":"Bash","tool_input":{"command":"touch x"}}`)
			_ = cmd.Run()
		}()
	}
	wg.Wait()
	if got := e.payloads(2, 2*time.Second); len(got) != 1 {
		t.Fatalf("%d fires for one episode", len(got))
	}
}

// fireFromEvent runs tma-hook with TMA_NOTIFY_FROM_EVENT set to v.
func (e *env) fireFromEvent(pane, v, event, payload string) string {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "tma-hook"), "claude", event)
	cmd.Env = append(e.hookEnv(pane), "TMA_NOTIFY_FROM_EVENT="+v)
	cmd.Stdin = strings.NewReader(payload)
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("tma-hook exited non-zero: %v\n%s", err, out)
	}
	return string(out)
}

// A blocked episode stamped without a fire (a hook with from_event off, or a
// plain cycle that saw the screen) is over once the next hook lands: that
// hook fires its own episode, never the one it ended (issue 27 item 7). The
// pane is not registered to the payload's session, so the hook's one-spawn
// plan gives way to the listed path: its arm lines must give way with it.
func TestNotifyFromEventAfterAnUnfiredEpisode(t *testing.T) {
	perm := `{` + sess + `,"tool_name":"Bash","tool_input":{"command":"touch x"}}`
	t.Run("a hook without from_event, then Stop", func(t *testing.T) {
		e := newNotifyEnv(t, "")
		a := e.s.StartAgent("claude", claudeIdle)
		e.fireFromEvent(a.Pane, "0", "PermissionRequest", perm)
		if got := e.payloads(1, 300*time.Millisecond); len(got) != 0 {
			t.Fatalf("from_event off fired: %v", got)
		}
		out := e.fireFromEvent(a.Pane, "1", "Stop", `{`+sess+`}`)
		ps := e.payloads(1, 5*time.Second)
		if len(ps) != 1 || ps[0]["state"] != "done" {
			t.Fatalf("want one done fire, got %v\nhook said: %s", ps, out)
		}
		if got := e.payloads(2, 500*time.Millisecond); len(got) != 1 {
			t.Errorf("fires %v", got)
		}
		if o := e.opts(a.Pane); o["@agent_state"] != "idle" || o["@agent_notified_at"] < o["@agent_since"] {
			t.Errorf("options after Stop %v", o)
		}
	})
	t.Run("a plain cycle saw the screen, then PostToolUse and Stop", func(t *testing.T) {
		e := newNotifyEnv(t, "from_event = true\n")
		a := e.startPainted(claudeBlocked)
		if got := e.ls(); got[a.Pane] != "blocked/permission attn" {
			t.Fatalf("ls %v", got)
		}
		out := e.fire(a.Pane, "claude", "PostToolUse", `{`+sess+`,"tool_name":"Bash"}`)
		if got := e.payloads(1, 500*time.Millisecond); len(got) != 0 {
			t.Fatalf("the answered prompt fired after it ended: %v\nhook said: %s", got, out)
		}
		e.fire(a.Pane, "claude", "Stop", `{`+sess+`}`)
		if ps := e.payloads(1, 5*time.Second); len(ps) != 1 || ps[0]["state"] != "done" {
			t.Errorf("want one done fire, got %v", ps)
		}
	})
}

// The daemon's stage: tma-stamp --notify fires what the screen shows first,
// and a from_event hook for that episode afterwards fires nothing.
func TestNotifyScreenFirstThenHook(t *testing.T) {
	e := newNotifyEnv(t, "from_event = true\n")
	a := e.startPainted(claudeBlocked)
	e.cycleNotify()
	if got := e.payloads(1, 5*time.Second); len(got) != 1 || got[0]["state"] != "blocked" || got[0]["detail"] != "permission" {
		t.Fatalf("screen-first fire: %v", got)
	}
	e.fire(a.Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"touch x"}}`)
	e.cycleNotify()
	if got := e.payloads(2, time.Second); len(got) != 1 {
		t.Errorf("%d fires for one episode", len(got))
	}
	// A cycle without --notify (a status line) never fires.
	b := e.startPainted(claudeBlocked)
	e.ls()
	if got := e.payloads(2, time.Second); len(got) != 1 {
		t.Errorf("a plain cycle fired")
	}
	// ... and does not steal the episode: the daemon's next cycle fires it.
	e.cycleNotify()
	ps := e.payloads(2, 5*time.Second)
	if len(ps) != 2 || ps[0]["pane"] != b.Pane && ps[1]["pane"] != b.Pane {
		t.Errorf("the episode a plain cycle stamped never fired: %v", ps)
	}
}

// cycleNotify runs the daemon's pipeline once: scan | fold | stamp --notify.
func (e *notifyEnv) cycleNotify(extraEnv ...string) {
	e.t.Helper()
	sh := "'" + binDir + "/tma-scan' -L " + e.s.Name + " | '" + binDir + "/tma-fold' | '" + binDir + "/tma-stamp' --notify -L " + e.s.Name + " >/dev/null"
	cmd := exec.Command("sh", "-c", sh)
	cmd.Env = append(append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH="), extraEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("cycle: %v\n%s", err, out)
	}
}

// A muted pane fires nothing, and its marker is still written: the mute
// ending mid-episode does not ring for it.
func TestNotifyMuted(t *testing.T) {
	e := newNotifyEnv(t, "")
	a := e.startPainted(claudeBlocked)
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_mute_until", itoa(time.Now().Add(2*time.Second).UnixMilli()))
	e.cycleNotify()
	if e.opts(a.Pane)["@agent_notified_at"] == "" {
		t.Fatalf("muted: no marker")
	}
	time.Sleep(2100 * time.Millisecond)
	e.cycleNotify()
	if got := e.payloads(1, time.Second); len(got) != 0 {
		t.Errorf("muted pane fired: %v", got)
	}
	if l := e.logLines(); len(l) != 1 || l[0] != "" {
		t.Errorf("muted pane logged: %q", l)
	}
}

// include_title governs the payload, TMA_TITLE and the log together.
func TestNotifyIncludeTitle(t *testing.T) {
	e := newNotifyEnv(t, "include_title = true\n")
	e.startPainted(claudeBlocked)
	e.cycleNotify()
	ps := e.payloads(1, 5*time.Second)
	if len(ps) != 1 || ps[0]["title"] != "✳ Probe" {
		t.Fatalf("payload %v", ps)
	}
	envs, _ := filepath.Glob(filepath.Join(e.dir, "env-*"))
	b, _ := os.ReadFile(envs[0])
	if !strings.Contains(string(b), "TMA_TITLE=✳ Probe\n") {
		t.Errorf("env %s", b)
	}
	if l := e.logLines(); len(l) != 1 || !strings.Contains(l[0], `"title":"✳ Probe"`) {
		t.Errorf("log %q", l)
	}
}

// Per-trigger routing, and TMA_NOTIFY_CMD over all of them.
func TestNotifyRouting(t *testing.T) {
	dir := t.TempDir()
	cfg := laneOff + "[notify]\non = [\"blocked\"]\ncommand = \"echo global >>" + dir + "/global\"\n[notify.blocked]\ncommand = \"echo blocked >>" + dir + "/blocked\"\n"
	e := &notifyEnv{env: newEnv(t, cfg), dir: dir}
	e.startPainted(claudeBlocked)
	e.cycleNotify()
	e.s.WaitFor(func() bool { _, err := os.Stat(filepath.Join(dir, "blocked")); return err == nil }, "the blocked route ran")
	if _, err := os.Stat(filepath.Join(dir, "global")); err == nil {
		t.Errorf("the global command ran for a routed trigger")
	}
	// The override funnels every trigger into one sink.
	b := e.startPainted(claudeBlocked)
	e.cycleNotify("TMA_NOTIFY_CMD=cat >" + dir + "/override")
	e.s.WaitFor(func() bool {
		got, _ := os.ReadFile(filepath.Join(dir, "override"))
		return strings.Contains(string(got), `"pane":"`+b.Pane+`"`)
	}, "TMA_NOTIFY_CMD ran with the payload")
}

// A command that hangs is killed at its bound and recorded; doctor shows
// it; notify-test reports and clears it.
func TestNotifyFailureRecorded(t *testing.T) {
	dir := t.TempDir()
	cfg := laneOff + "[notify]\ncommand = \"echo started >" + dir + "/started; sleep 60\"\n"
	e := &notifyEnv{env: newEnv(t, cfg), dir: dir}
	e.startPainted(claudeBlocked)
	t.Setenv("TMA_NOTIFY_TIMEOUT_MS", "500")
	e.cycleNotify()
	rec := filepath.Join(e.run, "tma", "notify-failure.json")
	e.s.WaitFor(func() bool { _, err := os.Stat(rec); return err == nil }, "the failure record")
	b, _ := os.ReadFile(rec)
	if !strings.Contains(string(b), `"reason":"killed after 500ms"`) || !strings.Contains(string(b), `sleep 60`) {
		t.Errorf("record %s", b)
	}
	out, _, _ := e.tma("doctor")
	if !strings.Contains(out, "notify:  killed after 500ms") || !strings.Contains(out, "tma debug notify-test --trigger blocked") {
		t.Errorf("doctor:\n%s", out)
	}
	// notify-test with a command that works clears the record.
	t.Setenv("TMA_NOTIFY_CMD", "cat >"+dir+"/test-payload")
	out, errs, code := e.tma("debug", "notify-test", "--trigger", "blocked")
	if code != 0 || !strings.HasPrefix(out, `payload   {"schema":2,"agent":"claude","pane":"%0","state":"blocked"`) ||
		!strings.Contains(out, "\ncommand   cat >"+dir+"/test-payload\nexit      0\n") {
		t.Errorf("notify-test: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(rec); err == nil {
		t.Errorf("a passing notify-test left the failure record")
	}
	t.Setenv("TMA_NOTIFY_CMD", "echo broken >&2; exit 3")
	out, errs, code = e.tma("debug", "notify-test")
	if code != 1 || !strings.Contains(out, "exit      3\n") || errs != "broken\n" {
		t.Errorf("failing notify-test: exit %d\n%s%s", code, out, errs)
	}
	testkit.Need(t, "sh")
}

// stall and context_high ride their own markers, from the daemon's stage
// only; context_high re-arms below threshold - 10.
func TestNotifyStallAndContextHigh(t *testing.T) {
	e := newNotifyEnv(t, "stall = { threshold_s = 5 }\ncontext_high = { threshold = 75 }\n")
	a := e.s.StartAgent("claude", claudeWorking)
	e.cycleNotify()
	// A working run that began 10 s ago, and a gauge over the threshold.
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_since", itoa(time.Now().Add(-10*time.Second).UnixMilli()))
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_context_pct", "80")
	e.ls() // a plain cycle fires neither
	if got := e.payloads(1, 500*time.Millisecond); len(got) != 0 {
		t.Fatalf("a plain cycle fired: %v", got)
	}
	e.cycleNotify()
	e.cycleNotify()
	ps := e.payloads(2, 5*time.Second)
	states := map[any]int{}
	for _, p := range ps {
		states[p["state"]]++
		if p["state"] == "stall" && p["since_ms"].(float64) < 9000 {
			t.Errorf("stall since_ms %v, want how long it had been working", p["since_ms"])
		}
		if p["state"] == "context_high" && p["context_pct"] != 80.0 {
			t.Errorf("context_high payload %v", p)
		}
	}
	if len(ps) != 2 || states["stall"] != 1 || states["context_high"] != 1 {
		t.Fatalf("fires %v", states)
	}
	o := e.opts(a.Pane)
	if o["@agent_stall_notified_at"] == "" || o["@agent_context_notified_at"] == "" || o["@agent_notified_at"] != "" {
		t.Errorf("markers %v", o)
	}
	// Inside the band: no re-arm; below it: re-armed, and the next crossing fires.
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_context_pct", "70")
	e.cycleNotify()
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_context_pct", "90")
	e.cycleNotify()
	if got := e.payloads(3, time.Second); len(got) != 2 {
		t.Fatalf("re-armed inside the band: %d fires", len(got))
	}
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_context_pct", "60")
	e.cycleNotify()
	if e.opts(a.Pane)["@agent_context_notified_at"] != "" {
		t.Fatalf("not re-armed at 60")
	}
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_context_pct", "76")
	e.cycleNotify()
	if got := e.payloads(3, 5*time.Second); len(got) != 3 {
		t.Errorf("the second crossing did not fire: %d fires", len(got))
	}
}

// osc_progress: the daemon's long-running stage lights a window's tab when
// it gains its first working agent, clears it when the last one finishes,
// and clears what is lit when it shuts down.
func TestNotifyOSCProgress(t *testing.T) {
	e := newNotifyEnv(t, "osc_progress = true\n")
	a := e.s.StartAgent("claude", claudeIdle)
	rec := filepath.Join(e.s.Dir, "pane-output")
	e.s.MustRun("pipe-pane", "-O", "-t", a.Pane, "cat >"+rec)
	sh := "'" + binDir + "/tma-scan' -L " + e.s.Name + " --follow --interval 200ms | '" + binDir + "/tma-fold' | '" + binDir + "/tma-stamp' --notify -L " + e.s.Name + " >/dev/null"
	cmd := exec.Command("sh", "-c", sh)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	on, clear := "\x1bPtmux;\x1b\x1b]9;4;3\a\x1b\\", "\x1bPtmux;\x1b\x1b]9;4;0\a\x1b\\"
	count := func(s string) int { b, _ := os.ReadFile(rec); return strings.Count(string(b), s) }
	a.Paint(claudeWorking)
	e.s.WaitFor(func() bool { return count(on) == 1 }, "the indicator lit")
	time.Sleep(time.Second) // more working cycles write nothing more
	if count(on) != 1 || count(clear) != 0 {
		t.Fatalf("on %d clear %d while working", count(on), count(clear))
	}
	a.Paint(claudeIdle)
	e.s.WaitFor(func() bool { return count(clear) == 1 }, "the indicator cleared")
	a.Paint(claudeWorking)
	e.s.WaitFor(func() bool { return count(on) == 2 }, "lit again")
	// A reload that turns osc_progress off clears what is lit; on again,
	// the working window lights again.
	cfgPath := filepath.Join(e.home, ".config", "tma", "config.toml")
	orig, _ := os.ReadFile(cfgPath)
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(orig), "osc_progress = true", "osc_progress = false", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	e.s.WaitFor(func() bool { return count(clear) == 2 }, "the clear when a reload turns it off")
	if err := os.WriteFile(cfgPath, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	e.s.WaitFor(func() bool { return count(on) == 3 }, "lit after the reload turns it on")
	// Shutdown clears it: the scan ends, the stream closes, stamp exits.
	_ = stdin.Close()
	if out, err := exec.Command("pkill", "-TERM", "-f", "tma-scan -L "+e.s.Name+" --follow").CombinedOutput(); err != nil {
		ps, _ := exec.Command("ps", "-eo", "pid,ppid,args").CombinedOutput()
		t.Fatalf("pkill: %v %s\n%s", err, out, ps)
	}
	e.s.WaitFor(func() bool { return count(clear) == 3 }, "the shutdown clear")

	// Ended by a signal (the daemon stopping its stage): cleared too.
	cmd2 := exec.Command("sh", "-c", sh)
	cmd2.Env = cmd.Env
	if err := cmd2.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd2.Process.Kill(); _ = cmd2.Wait() }()
	e.s.WaitFor(func() bool { return count(on) == 4 }, "lit by the second stage")
	if out, err := exec.Command("pkill", "-TERM", "-f", binDir+"/tma-stamp --notify -L "+e.s.Name).CombinedOutput(); err != nil {
		t.Fatalf("pkill: %v %s", err, out)
	}
	e.s.WaitFor(func() bool { return count(clear) == 4 }, "the clear on SIGTERM")
}

// The OSC sinks reach the terminal of a client attached to the server, the
// message beside them (issue 27 item 8): tmux before 3.6 freezes a client's
// tty while it shows a message and drops every passthrough meanwhile, so a
// fire writes its bytes before any message, and a cycle that wins several
// episodes writes every pane's bytes before the first message.
func TestNotifyOSCReachesAnAttachedClient(t *testing.T) {
	osc9, osc777 := "\x1b]9;claude blocked\a", "\x1b]777;notify;claude;blocked\a"
	setup := func(t *testing.T, extra string, panes int) (*notifyEnv, []*testkit.Agent, *ptyClient) {
		e := newNotifyEnv(t, "osc = true\nosc_777 = true\n"+extra)
		e.s.MustRun("set", "-g", "allow-passthrough", "on")
		var as []*testkit.Agent
		for i := 0; i < panes; i++ {
			screen := claudeIdle
			if extra == "" {
				screen = claudeBlocked
			}
			a := e.startPainted(screen)
			if i > 0 {
				// One window, so every pane is visible in the client.
				e.s.MustRun("join-pane", "-d", "-s", a.Pane, "-t", as[0].Pane)
			}
			as = append(as, a)
		}
		win := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", as[0].Pane, "#{session_name}:#{window_index}"))
		return e, as, e.attach(win)
	}
	arrived := func(c *ptyClient, seq string) int {
		b, _ := os.ReadFile(c.typescript)
		return strings.Count(string(b), seq)
	}
	t.Run("two fires in one cycle of the daemon's stage", func(t *testing.T) {
		e, _, c := setup(t, "", 2)
		e.cycleNotify()
		if got := e.payloads(2, 5*time.Second); len(got) != 2 {
			t.Fatalf("fires %v", got)
		}
		e.s.WaitFor(func() bool { return c.seen("tma: claude blocked") }, "the message on the client")
		e.s.WaitFor(func() bool { return arrived(c, osc9) == 2 && arrived(c, osc777) == 2 }, "both panes' OSC 9 and 777 on the client's terminal")
	})
	t.Run("a hook with from_event", func(t *testing.T) {
		e, as, c := setup(t, "from_event = true\n", 1)
		e.fire(as[0].Pane, "claude", "PermissionRequest", `{`+sess+`,"tool_name":"Bash","tool_input":{"command":"touch x"}}`)
		if got := e.payloads(1, 5*time.Second); len(got) != 1 {
			t.Fatalf("fires %v", got)
		}
		e.s.WaitFor(func() bool { return c.seen("tma: claude blocked") }, "the message on the client")
		e.s.WaitFor(func() bool { return arrived(c, osc9) == 1 && arrived(c, osc777) == 1 }, "OSC 9 and 777 on the client's terminal")
	})
}

// startPainted starts a fake claude and waits until its screen is on the
// pane, so the next cycle reads it.
func (e *env) startPainted(screen string) *testkit.Agent {
	e.t.Helper()
	a := e.s.StartAgent("claude", screen)
	a.Paint(screen)
	return a
}

// notify-test tries every configured sink and says what each did.
func TestNotifyTestReportsEverySink(t *testing.T) {
	e := newNotifyEnv(t, "bell = true\nosc = true\n")
	a := e.s.StartAgent("claude", claudeIdle)
	rec := filepath.Join(e.s.Dir, "pane-output")
	e.s.MustRun("pipe-pane", "-O", "-t", a.Pane, "cat >"+rec)
	cmd := exec.Command("dash", filepath.Join(binDir, "tma"), "debug", "notify-test")
	cmd.Env = append(e.hookEnv(a.Pane), "TMA_NOTIFY_CMD=cat >/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("notify-test: %v\n%s", err, out)
	}
	for _, want := range []string{"\nexit      0\n", "\nmessage   not shown: no client attached\n",
		"\ntty       bell, osc written to /dev/", "\nlog       " + filepath.Join(e.home, "state", "notify.jsonl") + " (real fires append there; a test does not)\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("notify-test lacks %q:\n%s", want, out)
		}
	}
	e.s.WaitFor(func() bool {
		b, _ := os.ReadFile(rec)
		return strings.Contains(string(b), "\a\x1bPtmux;\x1b\x1b]9;claude blocked\a\x1b\\")
	}, "the test's bell and OSC in the pane's output")
	if _, err := os.Stat(filepath.Join(e.home, "state", "notify.jsonl")); err == nil {
		t.Errorf("a test wrote the notify log")
	}
}

// context_high follows coverage, and a gauge goes with the agent that
// reported it (issue 27 item 9): a gauge on the pane of an agent whose
// manifest declares no context channel never fires, and a pane that
// changes hands (respawned as another agent, seen by a cycle or named by
// the new agent's own hook) drops the old agent's readings and its
// context_high marker.
func TestContextHighFollowsCoverage(t *testing.T) {
	gemini := screenOf("◇  Ready (work)", "\n > Type your message or @path/to/file\n")
	gauge := func(e *notifyEnv, pane, pct string) {
		e.s.MustRun("set", "-p", "-t", pane, "@agent_context_pct", pct)
		e.s.MustRun("set", "-p", "-t", pane, "@agent_context_at", itoa(time.Now().UnixMilli()))
	}
	respawn := func(e *notifyEnv, pane, agent, screen string) {
		f := filepath.Join(t.TempDir(), "screen")
		if err := os.WriteFile(f, []byte(screen), 0o644); err != nil {
			t.Fatal(err)
		}
		e.s.MustRun("respawn-pane", "-k", "-t", pane, "sh", "-c", "set -m; "+fakeAgentBin(t, agent)+" "+f+"; exec sh")
		e.s.WaitFor(func() bool {
			o, _ := e.s.Run("display", "-p", "-t", pane, "#{pane_current_command}")
			return strings.TrimSpace(o) == agent
		}, agent+" in the foreground of "+pane)
	}
	gone := func(t *testing.T, o map[string]string) {
		t.Helper()
		for _, k := range []string{"@agent_context_pct", "@agent_context_at", "@agent_tokens", "@agent_context_notified_at"} {
			if _, ok := o[k]; ok {
				t.Errorf("%s outlived the agent: %v", k, o)
			}
		}
	}
	t.Run("no coverage, no fire", func(t *testing.T) {
		e := newNotifyEnv(t, "context_high = { threshold = 75 }\n")
		g := e.s.StartAgent("gemini", gemini)
		e.cycleNotify()
		if n := e.opts(g.Pane)["@agent_name"]; n != "gemini" {
			t.Fatalf("the pane is %q", n)
		}
		gauge(e, g.Pane, "90")
		e.cycleNotify()
		if got := e.payloads(1, time.Second); len(got) != 0 {
			t.Errorf("context_high fired for gemini: %v", got)
		}
		if m := e.opts(g.Pane)["@agent_context_notified_at"]; m != "" {
			t.Errorf("marker %q on an uncovered pane", m)
		}
		// A covered agent beside it still fires.
		c := e.s.StartAgent("claude", claudeIdle)
		e.cycleNotify()
		gauge(e, c.Pane, "90")
		e.cycleNotify()
		if ps := e.payloads(1, 5*time.Second); len(ps) != 1 || ps[0]["state"] != "context_high" || ps[0]["pane"] != c.Pane {
			t.Errorf("claude's context_high: %v", ps)
		}
	})
	t.Run("respawned as another agent, seen by a cycle", func(t *testing.T) {
		e := newNotifyEnv(t, "context_high = { threshold = 50 }\n")
		c := e.s.StartAgent("claude", claudeIdle)
		e.cycleNotify()
		gauge(e, c.Pane, "55")
		e.s.MustRun("set", "-p", "-t", c.Pane, "@agent_tokens", "110000")
		e.cycleNotify()
		if ps := e.payloads(1, 5*time.Second); len(ps) != 1 || e.opts(c.Pane)["@agent_context_notified_at"] == "" {
			t.Fatalf("claude's gauge did not fire: %v %v", ps, e.opts(c.Pane))
		}
		respawn(e, c.Pane, "gemini", gemini)
		e.cycleNotify()
		o := e.opts(c.Pane)
		if o["@agent_name"] != "gemini" {
			t.Fatalf("the pane is %q", o["@agent_name"])
		}
		gone(t, o)
	})
	t.Run("respawned as another agent, named by its hook", func(t *testing.T) {
		e := newNotifyEnv(t, "")
		c := e.s.StartAgent("claude", claudeIdle)
		e.fire(c.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
		gauge(e, c.Pane, "55")
		e.s.MustRun("set", "-p", "-t", c.Pane, "@agent_context_notified_at", itoa(time.Now().UnixMilli()))
		respawn(e, c.Pane, "gemini", gemini)
		e.fire(c.Pane, "gemini", "SessionStart", `{"session_id":"g-1","source":"startup"}`)
		o := e.opts(c.Pane)
		if o["@agent_name"] != "gemini" || o["@agent_session"] != "g-1" {
			t.Fatalf("the hook did not register gemini: %v", o)
		}
		gone(t, o)
		// A state claim renames too: claude's gauge goes with it.
		d := e.s.StartAgent("claude", claudeIdle)
		e.fire(d.Pane, "claude", "UserPromptSubmit", `{"prompt":"hi"}`)
		gauge(e, d.Pane, "55")
		respawn(e, d.Pane, "gemini", gemini)
		e.fire(d.Pane, "gemini", "BeforeAgent", `{}`)
		o = e.opts(d.Pane)
		if o["@agent_name"] != "gemini" || o["@agent_state"] != "working" {
			t.Fatalf("the claim did not land: %v", o)
		}
		gone(t, o)
	})
}
