package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// start runs the dispatcher in the background (wait, subscribe).
func (e *env) start(args ...string) (*exec.Cmd, io.Reader, *bytes.Buffer) {
	e.t.Helper()
	cmd := exec.Command("dash", append([]string{filepath.Join(binDir, "tma"), "-L", e.s.Name}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	// Its own process group, so cleanup ends the whole pipeline, not just sh.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd, out, &errb
}

// finish waits for a background command and returns its exit code and stdout.
func finish(t *testing.T, cmd *exec.Cmd, out io.Reader, within time.Duration) (int, string) {
	t.Helper()
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(out); done <- b }()
	var b []byte
	select {
	case b = <-done:
	case <-time.After(within):
		t.Fatalf("still running after %s", within)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(b)
	}
	return 0, string(b)
}

func TestWaitExitCodes(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)

	// Level-triggered: already working returns at once, with the ls columns.
	out, _, code := e.tma("wait", "--pane", a.Pane, "--until", "working")
	if code != 0 || !strings.HasPrefix(out, a.Pane+"\tclaude\tworking") {
		t.Fatalf("level-triggered: %d %q", code, out)
	}
	// Reached later: blocked appears on screen.
	cmd, so, _ := e.start("wait", "--pane", a.Pane, "--until", "blocked,idle", "--json")
	time.Sleep(300 * time.Millisecond)
	a.Paint(claudeBlocked)
	code, got := finish(t, cmd, so, 10*time.Second)
	var row map[string]any
	if code != 0 || json.Unmarshal([]byte(got), &row) != nil || row["state"] != "blocked" || row["schema"] != float64(1) {
		t.Fatalf("reached: %d %q", code, got)
	}
	if keys := testkit.KeyOrder(t, got); !strings.HasPrefix(keys, "schema pane agent state detail since since_ms episode_ms") || !strings.HasSuffix(keys, "server host") {
		t.Errorf("wait --json keys: %s", keys)
	}
	// --since: the same episode does not satisfy again.
	ep := int64(row["episode_ms"].(float64))
	_, errs, code := e.tma("wait", "--pane", a.Pane, "--until", "blocked", "--since", itoa(ep), "--timeout", "1")
	if code != 124 || !strings.Contains(errs, "tma: timed out after 1s waiting for blocked (exit 124)") {
		t.Errorf("--since on the same episode: %d %q", code, errs)
	}
	// 124 with several states.
	_, errs, code = e.tma("wait", "--pane", a.Pane, "--until", "idle,working", "--timeout", "1")
	if code != 124 || !strings.Contains(errs, "waiting for idle or working") {
		t.Errorf("timeout: %d %q", code, errs)
	}
	// 4: the agent exits, the pane stays.
	cmd, so, eb := e.start("wait", "--pane", a.Pane, "--until", "idle")
	time.Sleep(500 * time.Millisecond)
	e.s.MustRun("send-keys", "-t", a.Pane, "C-\\")
	if code, _ := finish(t, cmd, so, 10*time.Second); code != 4 || !strings.Contains(eb.String(), "the agent on pane "+a.Pane+" exited before reaching idle (exit 4)") {
		t.Errorf("agent died: %d %q", code, eb.String())
	}
	// 3: the pane goes.
	b := e.s.StartAgent("claude", claudeWorking)
	cmd, so, eb = e.start("wait", "--pane", b.Pane, "--until", "idle")
	time.Sleep(500 * time.Millisecond)
	e.s.MustRun("kill-pane", "-t", b.Pane)
	if code, _ := finish(t, cmd, so, 10*time.Second); code != 3 || !strings.Contains(eb.String(), "the waited-on pane "+b.Pane+" vanished before reaching idle (exit 3)") {
		t.Errorf("pane vanished: %d %q", code, eb.String())
	}
	// 2: usage.
	_, errs, code = e.tma("wait", "--pane", "%1", "--until", "bogus")
	if code != 2 || !strings.Contains(errs, `unknown state "bogus" (expected one of: idle, working, blocked, unknown, done)`) {
		t.Errorf("bad token: %d %q", code, errs)
	}
	if _, _, code = e.tma("wait", "--until", "idle"); code != 2 {
		t.Errorf("no target: %d", code)
	}
	if _, _, code = e.tma("wait", "--all", "--agent", "nosuch", "--until", "idle"); code != 2 {
		t.Errorf("empty --all: %d", code)
	}
}

func TestWaitFleet(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)
	b := e.s.StartAgent("claude", claudeWorking)
	// --agent with two panes is ambiguous.
	_, errs, code := e.tma("wait", "--agent", "claude", "--until", "idle", "--timeout", "5")
	if code != 1 || !strings.Contains(errs, `--agent "claude" matches 2 panes`) {
		t.Errorf("ambiguous --agent: %d %q", code, errs)
	}
	// --all is a barrier pinned at the first look: a pane launched later
	// does not join it.
	cmd, so, _ := e.start("wait", "--all", "--until", "idle", "--json")
	time.Sleep(400 * time.Millisecond)
	// The new window only once the wait's control clients (the pusher and
	// the connection) have attached: a window added while one of them is
	// still identifying crashes tmux before 3.7 (architecture.md), which a
	// loaded run did here.
	e.s.WaitFor(func() bool { return e.controlClients() >= 2 }, "the wait's control clients")
	late := e.s.StartAgent("claude", claudeWorking)
	a.Paint(claudeIdle)
	time.Sleep(300 * time.Millisecond)
	b.Paint(claudeIdle)
	code, out := finish(t, cmd, so, 20*time.Second)
	var doc struct{ Agents []map[string]any }
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Agents) != 2 {
		t.Fatalf("--all: %d %q", code, out)
	}
	for _, r := range doc.Agents {
		if r["pane"] == late.Pane {
			t.Error("a pane launched mid-wait joined the barrier")
		}
	}
	// --count is a quorum over whoever shows up.
	out, errs, code = e.tma("wait", "--count", "2", "--until", "idle")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("--count: %d %q %s", code, out, errs)
	}
	// --any returns the first in scope.
	out, errs, code = e.tma("wait", "--any", "--until", "working")
	if code != 0 || !strings.HasPrefix(out, late.Pane+"\t") {
		t.Errorf("--any: %d %q %s", code, out, errs)
	}
}

// TestSupervisorLoop is the manual's recipe: feed one agent a queue of
// tasks, one per idle episode, carrying episode_ms forward as --since.
func TestSupervisorLoop(t *testing.T) {
	e := newEnv(t, "[fold]\ndwell_secs = 0\n")
	a := e.s.StartAgent("claude", claudeIdle)
	since := "0"
	for task := 0; task < 3; task++ {
		cmd, so, eb := e.start("wait", "--pane", a.Pane, "--until", "idle", "--since", since, "--json", "--timeout", "20")
		if task > 0 {
			// The agent finishes the task it was fed: a new idle episode.
			time.Sleep(300 * time.Millisecond)
			a.Paint(claudeIdle)
		}
		code, out := finish(t, cmd, so, 25*time.Second)
		if code != 0 {
			t.Fatalf("task %d: %d %s", task, code, eb.String())
		}
		var row struct {
			EpisodeMS int64 `json:"episode_ms"`
		}
		if err := json.Unmarshal([]byte(out), &row); err != nil || itoa(row.EpisodeMS) == since {
			t.Fatalf("task %d: episode %d after %s (%v)", task, row.EpisodeMS, since, err)
		}
		since = itoa(row.EpisodeMS)
		// Feed the next task: the agent works on it.
		a.Paint(claudeWorking)
		e.s.WaitFor(func() bool { return strings.HasPrefix(e.ls()[a.Pane], "working") }, "working")
		// The same episode never satisfies the next wait twice.
		if _, _, code := e.tma("wait", "--pane", a.Pane, "--until", "idle", "--since", since, "--timeout", "0.5"); code != 124 {
			t.Fatalf("task %d: a wait on the handled episode returned %d", task, code)
		}
	}
}

func TestSubscribe(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)
	if _, errs, code := e.tma("subscribe"); code != 2 || !strings.Contains(errs, "--json") {
		t.Errorf("subscribe without --json: %d %q", code, errs)
	}
	// Snapshots with --changes-only: the entry document, then only changes.
	cmd, so, _ := e.start("subscribe", "--json", "--changes-only", "--interval", "200ms")
	rd := bufio.NewReader(so)
	first := readLine(t, rd)
	if !strings.HasPrefix(first, `{"schema":1,"agents":[{"pane":"`+a.Pane+`"`) || !strings.Contains(first, `"state":"working"`) {
		t.Fatalf("entry snapshot: %q", first)
	}
	a.Paint(claudeBlocked)
	// Every document sent differs from the one before it (a label resolved
	// late is a change too); the blocked one arrives.
	stamp := regexp.MustCompile(`"stamped_at_ms":\d+`)
	prev := stamp.ReplaceAllString(first, "")
	for i := 0; ; i++ {
		next := readLine(t, rd)
		if k := stamp.ReplaceAllString(next, ""); k == prev {
			t.Fatalf("--changes-only sent an unchanged document: %q", next)
		} else {
			prev = k
		}
		if strings.Contains(next, `"state":"blocked"`) {
			break
		}
		if i == 5 {
			t.Fatalf("no blocked snapshot; last: %q", next)
		}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)

	// Events: a silent baseline, then real edges, appear and vanish included.
	cmd, so, _ = e.start("subscribe", "--json", "--events", "--interval", "200ms")
	rd = bufio.NewReader(so)
	time.Sleep(600 * time.Millisecond)
	a.Paint(claudeWorking)
	ev := readLine(t, rd)
	if !strings.Contains(ev, `"from":"blocked","to":"working"`) || !strings.HasPrefix(ev, `{"schema":1,"at_ms":`) {
		t.Fatalf("event: %q", ev)
	}
	b := e.s.StartAgent("claude", claudeIdle)
	if ev = readLine(t, rd); !strings.Contains(ev, `"pane":"`+b.Pane+`"`) || !strings.Contains(ev, `"from":"","to":"idle"`) {
		t.Fatalf("appear: %q", ev)
	}
	e.s.MustRun("kill-pane", "-t", b.Pane)
	if ev = readLine(t, rd); !strings.Contains(ev, `"from":"idle","to":""`) {
		t.Fatalf("vanish: %q", ev)
	}
	// It ends when its stdout closes.
	_ = so.(io.Closer).Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("subscribe outlived its reader")
	}
}

func readLine(t *testing.T, rd *bufio.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() { l, _ := rd.ReadString('\n'); ch <- strings.TrimSpace(l) }()
	select {
	case l := <-ch:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10s")
	}
	return ""
}
