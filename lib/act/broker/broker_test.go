package broker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// Claude Code 2.1's permission prompt and its idle prompt, in the fake
// agent's screen format (fixtures/claude has the captured originals).
const (
	claudeBlocked = "# title: ✳ Probe\n---\n\n Bash command\n\n   touch probe.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again\n   3. No, and tell Claude what to do differently (esc)\n"
	claudeIdle    = "# title: ✳ Probe\n---\n> do the thing\n\n● Done.\n\n✻ Worked for 6s\n\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  ? for shortcuts\n"
)

// rig is a broker on an isolated server, with its streams and the act log
// and ledger in a scratch directory.
type rig struct {
	t              *testing.T
	s              *testkit.Server
	actLog         string
	env            map[string]string
	stdout, stderr bytes.Buffer
}

func newRig(t *testing.T) *rig {
	t.Helper()
	s := testkit.NewServer(t)
	dir := t.TempDir()
	return &rig{t: t, s: s, actLog: filepath.Join(dir, "acts.jsonl"),
		env: map[string]string{"XDG_RUNTIME_DIR": filepath.Join(dir, "run"), "HOME": dir}}
}

// broker builds one invocation of req against the rig's server, with the
// bundled actions and manifests and a config that logs every attempt.
func (r *rig) broker(req Request) *Broker {
	r.t.Helper()
	set, err := act.Load("")
	if err != nil {
		r.t.Fatal(err)
	}
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Act.Log = r.actLog
	if req.Source == "" {
		req.Source = "cli"
	}
	r.stdout.Reset()
	r.stderr.Reset()
	return &Broker{Req: req, Actions: set, Config: cfg, Manifests: ms,
		Tmux: tmux.New(r.s.Bin, tmux.Target{SocketPath: r.s.Socket}), Host: "testhost",
		Stdin: strings.NewReader(""), Stdout: &r.stdout, Stderr: &r.stderr,
		Getenv:            func(k string) string { return r.env[k] },
		Now:               func() int64 { return time.Now().UnixMilli() },
		Errorf:            func(format string, a ...any) { fmt.Fprintf(&r.stderr, "tma: error: "+format+"\n", a...) },
		DescribeTmuxError: func(_ *tmux.Client, err error) string { return err.Error() },
	}
}

// settle runs cycles until pane's agent reads state (the fold may dwell).
func (r *rig) settle(pane, state string) {
	r.t.Helper()
	b := r.broker(Request{})
	var got string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		f, err := b.cycle("", nil)
		if err != nil {
			r.t.Fatal(err)
		}
		if t, _, ok := b.target(f, pane); ok && t.State == state {
			return
		} else {
			got = t.State
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.t.Fatalf("%s never read %s (last %q)", pane, state, got)
}

func sent(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func waitSent(t *testing.T, log, want string) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = sent(t, log); got == want {
			return
		}
	}
	t.Fatalf("the pane received %q, want %q", got, want)
}

// auditLines reads the act log.
func (r *rig) auditLines() []act.AuditLine {
	r.t.Helper()
	b, err := os.ReadFile(r.actLog)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []act.AuditLine
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a act.AuditLine
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			r.t.Fatalf("act log line %q: %v", l, err)
		}
		out = append(out, a)
	}
	return out
}

func decode(t *testing.T, out string) act.Result {
	t.Helper()
	var r act.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not a result object: %q", out)
	}
	return r
}

// TestFireDeliversAndReleases fires approve on a blocked claude pane: the
// manifest's key reaches the agent, the lock is gone afterwards, the repeat
// run counts the fire, the result document says sent, and the act log has
// the attempt with the agent and episode.
func TestFireDeliversAndReleases(t *testing.T) {
	r := newRig(t)
	a, in := r.s.StartRecordingAgent("claude", claudeBlocked)
	r.settle(a.Pane, "blocked")

	code := r.broker(Request{Name: "approve", Pane: a.Pane, JSON: true}).Fire()
	if code != act.ExitOK {
		t.Fatalf("approve: exit %d, stderr %s", code, r.stderr.String())
	}
	res := decode(t, r.stdout.String())
	if res.Outcome != act.OutcomeSent || res.Pane != a.Pane || res.Action != "approve" {
		t.Fatalf("result %+v", res)
	}
	waitSent(t, in, "1")
	if v := r.s.Option(a.Pane, act.LockOption); v != "" {
		t.Errorf("the lock was not released: %q", v)
	}
	if v := r.s.Option(a.Pane, act.RepeatOption); !strings.HasSuffix(v, ":approve:1") {
		t.Errorf("%s = %q, want one approve in the episode", act.RepeatOption, v)
	}
	ls := r.auditLines()
	if len(ls) != 1 {
		t.Fatalf("act log: %d lines, want 1", len(ls))
	}
	l := ls[0]
	if l.Outcome != act.OutcomeSent || l.Action != "approve" || l.Kind != act.KindKeys || l.Pane != a.Pane ||
		l.Agent == nil || *l.Agent != "claude" || l.EpisodeMS == nil || *l.EpisodeMS <= 0 || l.Source != "cli" {
		t.Errorf("act log line %+v", l)
	}
}

// TestFireRefusals: the gate refuses approve on an idle pane, a held lock
// refuses it as locked, --expect-episode-ms refuses a stale episode, and an
// absent pane is vanished; none of them sends a byte, and each exits with
// its rung of the ladder.
func TestFireRefusals(t *testing.T) {
	r := newRig(t)
	idle, idleIn := r.s.StartRecordingAgent("claude", claudeIdle)
	blocked, blockedIn := r.s.StartRecordingAgent("claude", claudeBlocked)
	r.settle(idle.Pane, "idle")
	r.settle(blocked.Pane, "blocked")

	check := func(what string, req Request, code int, reason string) {
		t.Helper()
		req.JSON = true
		if got := r.broker(req).Fire(); got != code {
			t.Fatalf("%s: exit %d, want %d (stderr %s)", what, got, code, r.stderr.String())
		}
		if res := decode(t, r.stdout.String()); res.ReasonString() != reason {
			t.Errorf("%s: reason %q, want %q", what, res.ReasonString(), reason)
		}
	}
	check("idle", Request{Name: "approve", Pane: idle.Pane}, act.ExitRefused, act.ReasonGated)

	lk := act.Lock{ExpiryMS: time.Now().UnixMilli() + 60_000, Nonce: "other", PID: os.Getpid(), Name: "deny"}
	r.s.MustRun("set", "-p", "-t", blocked.Pane, act.LockOption, lk.String())
	check("locked", Request{Name: "approve", Pane: blocked.Pane}, act.ExitLocked, act.ReasonLocked)
	if !strings.Contains(r.stderr.String(), "deny holds "+blocked.Pane) {
		t.Errorf("the refusal does not name the holder: %s", r.stderr.String())
	}
	r.s.MustRun("set", "-p", "-u", "-t", blocked.Pane, act.LockOption)

	stale := int64(1)
	check("episode", Request{Name: "approve", Pane: blocked.Pane, ExpectEpisodeMS: &stale}, act.ExitRefused, act.ReasonEpisodeChanged)
	if v := r.s.Option(blocked.Pane, act.LockOption); v != "" {
		t.Errorf("a refusal under the lock left it held: %q", v)
	}
	check("vanished", Request{Name: "approve", Pane: "%999"}, act.ExitVanish, act.ReasonPaneGone)

	time.Sleep(200 * time.Millisecond) // a stray key would have landed
	if s := sent(t, idleIn) + sent(t, blockedIn); s != "" {
		t.Errorf("a refused fire sent %q", s)
	}
	if n := len(r.auditLines()); n != 4 {
		t.Errorf("act log: %d lines, want one per attempt (4)", n)
	}
}

// TestSlotAtMostOnce: a slotted approve fires once; the same slot again
// replays the receipt (cached, the first exit code) and sends nothing; the
// ledger holds one receipt for the slot with the device.
func TestSlotAtMostOnce(t *testing.T) {
	r := newRig(t)
	a, in := r.s.StartRecordingAgent("claude", claudeBlocked)
	r.settle(a.Pane, "blocked")

	req := Request{Name: "approve", Pane: a.Pane, JSON: true, Slot: "s-1", Device: "phone"}
	if code := r.broker(req).Fire(); code != act.ExitOK {
		t.Fatalf("first: exit %d %s", code, r.stderr.String())
	}
	first := decode(t, r.stdout.String())
	if first.Cached == nil || *first.Cached || first.Outcome != act.OutcomeSent {
		t.Fatalf("first dispatch: %+v", first)
	}
	waitSent(t, in, "1")

	if code := r.broker(req).Fire(); code != act.ExitOK {
		t.Fatalf("replay: exit %d %s", code, r.stderr.String())
	}
	again := decode(t, r.stdout.String())
	if again.Cached == nil || !*again.Cached || again.Outcome != act.OutcomeSent || again.Pane != a.Pane {
		t.Fatalf("replay: %+v", again)
	}
	if !strings.Contains(r.stderr.String(), "cached receipt for slot s-1") {
		t.Errorf("replay note: %s", r.stderr.String())
	}
	time.Sleep(200 * time.Millisecond)
	if s := sent(t, in); s != "1" {
		t.Errorf("the replay sent again: the pane received %q", s)
	}
	es, err := ledger.Read(filepath.Join(ledger.RuntimeDir(func(k string) string { return r.env[k] }), ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	rs := ledger.Receipts(es, "s-1")
	if len(rs) != 1 || rs[0].Outcome != act.OutcomeSent || rs[0].Device == nil || *rs[0].Device != "phone" {
		t.Fatalf("ledger receipts: %+v", rs)
	}
	if n := len(r.auditLines()); n != 1 {
		t.Errorf("act log: %d lines, want 1 (a replay is not a fire)", n)
	}
}

// TestSlotLockedRefusalFreesTheSlot: a dispatch refused as locked leaves
// no receipt, so the same slot fires once the lock is gone.
func TestSlotLockedRefusalFreesTheSlot(t *testing.T) {
	r := newRig(t)
	a, in := r.s.StartRecordingAgent("claude", claudeBlocked)
	r.settle(a.Pane, "blocked")
	lk := act.Lock{ExpiryMS: time.Now().UnixMilli() + 60_000, Nonce: "other", PID: os.Getpid(), Name: "deny"}
	r.s.MustRun("set", "-p", "-t", a.Pane, act.LockOption, lk.String())

	req := Request{Name: "approve", Pane: a.Pane, JSON: true, Slot: "s-2"}
	if code := r.broker(req).Fire(); code != act.ExitLocked {
		t.Fatalf("locked: exit %d %s", code, r.stderr.String())
	}
	r.s.MustRun("set", "-p", "-u", "-t", a.Pane, act.LockOption)
	if code := r.broker(req).Fire(); code != act.ExitOK {
		t.Fatalf("after the lock: exit %d %s", code, r.stderr.String())
	}
	if res := decode(t, r.stdout.String()); *res.Cached || res.Outcome != act.OutcomeSent {
		t.Fatalf("after the lock: %+v", res)
	}
	waitSent(t, in, "1")
}

// TestDryRunFiresNothing: the dry run names the gate, the effect and the
// context with each value's age, takes no lock, sends nothing, logs
// nothing, and exits with the code the fire would start from.
func TestDryRunFiresNothing(t *testing.T) {
	r := newRig(t)
	a, in := r.s.StartRecordingAgent("claude", claudeBlocked)
	idle := r.s.StartAgent("claude", claudeIdle)
	r.settle(a.Pane, "blocked")
	r.settle(idle.Pane, "idle")

	if code := r.broker(Request{Name: "approve", Pane: a.Pane, DryRun: true, Slot: "never"}).Fire(); code != act.ExitOK {
		t.Fatalf("dry run: exit %d %s", code, r.stderr.String())
	}
	out := r.stdout.String()
	for _, want := range []string{
		"action:  approve\n", "pane:    " + a.Pane + "\n", "agent:   claude\n", "gate:    fireable\n",
		"effect:  ", "context:\n", "TMA_ACTION", "TMA_STATE", "blocked", "(live)", "ms old)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if code := r.broker(Request{Name: "approve", Pane: idle.Pane, DryRun: true}).Fire(); code != act.ExitRefused {
		t.Fatalf("dry run on idle: exit %d", code)
	}
	if !strings.Contains(r.stdout.String(), "gate:    refused: "+act.ReasonGated) {
		t.Errorf("dry run on idle:\n%s", r.stdout.String())
	}
	if code := r.broker(Request{Name: "approve", Pane: idle.Pane, DryRun: true, Force: true}).Fire(); code != act.ExitOK {
		t.Fatalf("dry run --force: exit %d", code)
	}
	if !strings.Contains(r.stdout.String(), "fireable (--force: the when gate is skipped)") {
		t.Errorf("dry run --force:\n%s", r.stdout.String())
	}

	time.Sleep(200 * time.Millisecond)
	if s := sent(t, in); s != "" {
		t.Errorf("a dry run sent %q", s)
	}
	if v := r.s.Option(a.Pane, act.LockOption); v != "" {
		t.Errorf("a dry run took the lock: %q", v)
	}
	if _, err := os.Stat(r.actLog); !os.IsNotExist(err) {
		t.Errorf("a dry run wrote the act log (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(r.env["XDG_RUNTIME_DIR"], "tma", ledger.FileName)); !os.IsNotExist(err) {
		t.Errorf("a dry run with --slot claimed it (%v)", err)
	}
}

// TestUsageBeforeTmux: an unknown action and a payload flag of the wrong
// kind are usage errors (2) decided before any tmux call: the broker's
// client points at a socket that does not exist.
func TestUsageBeforeTmux(t *testing.T) {
	r := &rig{t: t, env: map[string]string{}}
	r.s = &testkit.Server{Bin: testkit.TmuxBin(), Socket: filepath.Join(t.TempDir(), "absent")}
	text := "hi"
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Name: "nope", Pane: "%1"}, `unknown action "nope"`},
		{Request{Name: "approve", Pane: "%1", Arg: []string{"x"}}, "--arg is for exec actions"},
		{Request{Name: "approve", Pane: "%1", Text: &text}, "--text is for text actions"},
		{Request{Name: "steer", Pane: "%1"}, "pass it with --text"},
		{Request{Name: "approve"}, "no target"},
	} {
		if code := r.broker(c.req).Fire(); code != act.ExitUsage || !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%+v: exit %d, stderr %q, want 2 and %q", c.req, code, r.stderr.String(), c.want)
		}
	}
}

// TestTextPayloadRefusedBeforeTmux: a steer with a control byte is refused
// (4) before any tmux call, with the reason and a log line.
func TestTextPayloadRefusedBeforeTmux(t *testing.T) {
	r := &rig{t: t, actLog: filepath.Join(t.TempDir(), "acts.jsonl"), env: map[string]string{}}
	r.s = &testkit.Server{Bin: testkit.TmuxBin(), Socket: filepath.Join(t.TempDir(), "absent")}
	text := "two\nlines"
	if code := r.broker(Request{Name: "steer", Pane: "%1", Text: &text}).Fire(); code != act.ExitRefused {
		t.Fatalf("exit %d %s", code, r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "carries a control character") {
		t.Errorf("stderr %q", r.stderr.String())
	}
	if ls := r.auditLines(); len(ls) != 1 || ls[0].Reason == nil || *ls[0].Reason != act.ReasonControlBytes {
		t.Errorf("act log %+v", ls)
	}
}

// TestChildEnv: an exec child gets tma's environment minus any inherited
// context or argument variable, this pane's context (empty values absent)
// and the --arg values, numbered when there are several.
func TestChildEnv(t *testing.T) {
	t.Setenv("TMA_AGENT", "inherited")
	t.Setenv("TMA_ARG_7", "inherited")
	t.Setenv("TMA_SOCKET_PATH", "/inherited")
	t.Setenv("KEEP_ME", "1")
	b := &Broker{Req: Request{Arg: []string{"a", "b"}}}
	f := &fleet.Fleet{Cycle: &record.Cycle{Server: "/srv/sock"}}
	a := &act.Action{Name: "run"}
	env := b.childEnv(a, f, "%3", act.Target{Agent: "claude", State: "blocked", PID: 42})
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{"TMA_ACTION": "run", "TMA_PANE": "%3", "TMA_AGENT": "claude", "TMA_STATE": "blocked",
		"TMA_PID": "42", "TMA_SOCKET_PATH": "/srv/sock", "TMA_ARG": "a", "TMA_ARG_1": "a", "TMA_ARG_2": "b", "TMA_ARG_COUNT": "2", "KEEP_ME": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"TMA_ARG_7", "TMA_DETAIL", "TMA_SESSION_ID", "TMA_CWD", "TMA_TITLE", "TMA_LOCATOR"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s is set (%q): inherited or empty values stay out", k, v)
		}
	}
}
