package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/testkit"
)

// detachEnv is a notifyEnv with an act log and a scratch directory the
// detached commands use to signal and record.
func newDetachEnv(t *testing.T, notifyExtra string) (*notifyEnv, string, string) {
	t.Helper()
	actLog := filepath.Join(t.TempDir(), "acts.jsonl")
	e := newNotifyEnv(t, notifyExtra+"\n[act]\nlog = \""+actLog+"\"\n")
	return e, actLog, t.TempDir()
}

func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(path)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("act log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestDetachedAction: a detach = true action returns spawned at once; its
// supervisor holds the pane lock while the child runs (with the context
// environment, in tma's directory), releases it when the child exits, and
// reports the completion on every sink, mute or not: the payload with its
// exact keys, the environment, the log line, the bell on the pane, the
// message on the client, and the act log.
func TestDetachedAction(t *testing.T) {
	e, actLog, dir := newDetachEnv(t, "bell = true\n")
	a := e.s.StartAgent("claude", claudeIdle)
	rec := filepath.Join(e.s.Dir, "pane-output")
	e.s.MustRun("pipe-pane", "-O", "-t", a.Pane, "cat >"+rec)
	c := e.attach("s")
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	if _, errs, code := e.tma("mute", "--pane", a.Pane, "--for", "30m"); code != 0 {
		t.Fatalf("mute: %s", errs)
	}
	// The child records its context and waits for the test's go.
	e.userAction("summarize", `min_engine_version = "0.1"
name = "summarize"
label = "Summarize"
kind = "exec"
agents = ["claude"]
detach = true
detach_timeout_ms = 60000
command = 'env | grep "^TMA_" | sort >"`+dir+`/child-env"; pwd >"`+dir+`/child-pwd"; while [ ! -e "`+dir+`/go" ]; do sleep 0.05; done; exit 3'
`)
	start := time.Now()
	r, errs, code := e.actJSON(nil, "summarize", "--pane", a.Pane)
	if code != 0 || r.Outcome != "spawned" || r.reason() != "" {
		t.Fatalf("fire: %+v exit %d: %s", r, code, errs)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the broker waited %v for a detached child", d)
	}
	e.s.WaitFor(func() bool {
		_, err := os.Stat(filepath.Join(dir, "child-pwd"))
		return err == nil
	}, "the child started")
	env := read(t, filepath.Join(dir, "child-env"))
	for _, want := range []string{"TMA_ACTION=summarize\n", "TMA_AGENT=claude\n", "TMA_PANE=" + a.Pane + "\n", "TMA_STATE=idle\n", "TMA_SESSION_ID=s-1\n", "TMA_SOCKET_PATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("the child's environment lacks %q:\n%s", want, env)
		}
	}
	// The lock is the supervisor's while the child runs.
	lock := e.s.Option(a.Pane, act.LockOption)
	l, ok := act.ParseLock(lock)
	if !ok || l.Name != "summarize" || syscall.Kill(l.PID, 0) != nil {
		t.Fatalf("lock %q is not held by a live supervisor", lock)
	}
	if r, _, code := e.actJSON(nil, "summarize", "--pane", a.Pane); code != 5 || r.reason() != "locked" {
		t.Errorf("a second fire while the child runs: %+v exit %d", r, code)
	}
	if got := e.payloads(1, 300*time.Millisecond); len(got) != 0 {
		t.Fatalf("a completion before the child ended: %v", got)
	}

	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ps := e.payloads(1, 20*time.Second)
	if len(ps) != 1 {
		t.Fatalf("want one completion, got %d", len(ps))
	}
	files, _ := filepath.Glob(filepath.Join(e.dir, "payload-*.json"))
	raw := read(t, files[0])
	if k := testkit.KeyOrder(t, raw); k != "schema action pane agent outcome exit_code locator lock_release_failed" {
		t.Errorf("completion keys: %s", k)
	}
	p := ps[0]
	if p["schema"] != 1.0 || p["action"] != "summarize" || p["pane"] != a.Pane || p["agent"] != "claude" || p["outcome"] != "exited" ||
		p["exit_code"] != 3.0 || p["lock_release_failed"] != false || !strings.HasPrefix(p["locator"].(string), "s:") {
		t.Errorf("completion %v", p)
	}
	envs, _ := filepath.Glob(filepath.Join(e.dir, "env-*"))
	cenv := read(t, envs[0])
	for _, want := range []string{"TMA_ACTION=summarize\n", "TMA_AGENT=claude\n", "TMA_PANE=" + a.Pane + "\n", "TMA_OUTCOME=exited\n", "TMA_EXIT_CODE=3\n", "TMA_LOCATOR=s:"} {
		if !strings.Contains(cenv, want) {
			t.Errorf("the command's environment lacks %q:\n%s", want, cenv)
		}
	}
	for _, not := range []string{"TMA_STATE=", "TMA_SESSION_ID=", "TMA_CWD="} {
		if strings.Contains(cenv, not) {
			t.Errorf("the completion's environment carries the child's %s:\n%s", not, cenv)
		}
	}
	// The supervisor appends both logs after it hands the command its
	// payload, so they may land a moment after the payload shows.
	e.s.WaitFor(func() bool { l := e.logLines(); return len(l) == 1 && l[0] != "" }, "the completion's notify log line")
	e.s.WaitFor(func() bool { return len(auditLines(t, actLog)) == 3 }, "the completion's act log line")
	if l := e.logLines(); len(l) != 1 || !strings.HasPrefix(l[0], `{"schema":1,"at":`) || !strings.Contains(l[0], `"action":"summarize"`) || strings.Contains(l[0], `"state"`) {
		t.Errorf("notify log %q", l)
	}
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, act.LockOption) == "" }, "the lock released")
	e.s.WaitFor(func() bool { return c.seen("tma: summarize on " + a.Pane) }, "the completion on the attached client")
	e.s.WaitFor(func() bool {
		b, _ := os.ReadFile(rec)
		return strings.Contains(string(b), "\a")
	}, "the bell in the pane's output")
	lines := auditLines(t, actLog)
	if len(lines) != 3 || lines[0]["outcome"] != "spawned" || lines[1]["reason"] != "locked" || lines[2]["outcome"] != "exited" || lines[2]["exit_code"] != 3.0 || lines[2]["kind"] != "exec" {
		t.Errorf("act log %v", lines)
	}
	// tma's own working directory, not the pane's (D-111).
	if pwd, _ := os.Getwd(); strings.TrimSpace(read(t, filepath.Join(dir, "child-pwd"))) != pwd {
		t.Errorf("the child ran in %s, not tma's %s", read(t, filepath.Join(dir, "child-pwd")), pwd)
	}
}

// TestDetachedTimeout: at detach_timeout_ms the supervisor kills the
// child's whole process group; the completion is outcome timeout with no
// exit code (TMA_EXIT_CODE unset); a failing [notify] command updates the
// failure record doctor reads.
func TestDetachedTimeout(t *testing.T) {
	e, actLog, dir := newDetachEnv(t, "")
	// A command that fails, so the failure record shows the completion.
	cfg := filepath.Join(e.home, ".config", "tma", "config.toml")
	b := read(t, cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(b, "command = '''", "command = '''echo failing >&2; ", 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(read(t, cfg), `payload-$n.json"'''`, `payload-$n.json"; exit 7'''`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.userAction("slow", `min_engine_version = "0.1"
name = "slow"
label = "Slow"
kind = "exec"
detach = true
detach_timeout_ms = 500
command = 'sleep 60 & echo $! >"`+dir+`/grandchild"; sleep 60'
`)
	if r, errs, code := e.actJSON(nil, "slow", "--pane", a.Pane); code != 0 || r.Outcome != "spawned" {
		t.Fatalf("fire: %+v exit %d: %s", r, code, errs)
	}
	ps := e.payloads(1, 20*time.Second)
	if len(ps) != 1 {
		t.Fatalf("want one completion, got %d", len(ps))
	}
	if p := ps[0]; p["outcome"] != "timeout" || p["exit_code"] != nil || p["agent"] != "claude" {
		t.Errorf("completion %v", p)
	}
	envs, _ := filepath.Glob(filepath.Join(e.dir, "env-*"))
	if cenv := read(t, envs[0]); strings.Contains(cenv, "TMA_EXIT_CODE") || !strings.Contains(cenv, "TMA_OUTCOME=timeout\n") {
		t.Errorf("a deadline kill's environment:\n%s", cenv)
	}
	gc := strings.TrimSpace(read(t, filepath.Join(dir, "grandchild")))
	e.s.WaitFor(func() bool {
		_, err := os.Stat("/proc/" + gc)
		return err != nil
	}, "the child's process group killed")
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, act.LockOption) == "" }, "the lock released")
	e.s.WaitFor(func() bool {
		rec, err := os.ReadFile(filepath.Join(e.run, "tma", "notify-failure.json"))
		return err == nil && strings.Contains(string(rec), `"trigger":"completion"`) && strings.Contains(string(rec), "exit 7")
	}, "the failure record naming the completion")
	if l := auditLines(t, actLog); len(l) != 2 || l[1]["outcome"] != "timeout" || l[1]["exit_code"] != 124.0 {
		t.Errorf("act log %v", l)
	}
	// The manifest's deadline is in the dry run.
	if out, _, _ := e.tma("act", "slow", "--pane", a.Pane, "--dry-run"); !strings.Contains(out, "detached: a supervisor runs it, killed at 500 ms") {
		t.Errorf("dry run:\n%s", out)
	}
}

// doctor's hint for a failed completion is a command that runs: it re-runs
// the global command on a completion's payload and shows its stderr and
// exit (issue 27 item 10; it once named a trigger notify-test refused).
func TestDoctorHintForAFailedCompletionRuns(t *testing.T) {
	dir := t.TempDir()
	e := &notifyEnv{env: newEnv(t, laneOff+"[notify]\ncommand = \"echo the hook broke >&2; exit 9\"\n"), dir: dir}
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.userAction("quick", `min_engine_version = "0.1"
name = "quick"
label = "Quick"
kind = "exec"
detach = true
detach_timeout_ms = 10000
command = 'true'
`)
	if r, errs, code := e.actJSON(nil, "quick", "--pane", a.Pane); code != 0 || r.Outcome != "spawned" {
		t.Fatalf("fire: %+v exit %d: %s", r, code, errs)
	}
	rec := filepath.Join(e.run, "tma", "notify-failure.json")
	e.s.WaitFor(func() bool {
		b, err := os.ReadFile(rec)
		return err == nil && strings.Contains(string(b), `"trigger":"completion"`)
	}, "the failure record naming the completion")
	out, _, _ := e.tma("doctor")
	_, hint, ok := strings.Cut(out, "— run `")
	hint, _, ok2 := strings.Cut(hint, "` to see its stderr")
	if !ok || !ok2 || !strings.HasPrefix(hint, "tma debug notify-test ") {
		t.Fatalf("no hint in doctor:\n%s", out)
	}
	args := strings.Fields(strings.TrimPrefix(hint, "tma "))
	got, errs, code := e.tma(args...)
	if code != 1 || !strings.HasPrefix(got, `payload   {"schema":1,"action":`) ||
		!strings.Contains(got, "\ncommand   echo the hook broke >&2; exit 9\nexit      9\n") || errs != "the hook broke\n" {
		t.Errorf("%s: exit %d\n%s%s", hint, code, got, errs)
	}
}
