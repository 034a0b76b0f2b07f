package broker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// TestAllNeverAnswersAPrompt: --all is refused (exit 2, before any tmux
// call) for approve and every action that would answer a prompt, and for
// any action --force would let onto one; deny, dismiss, interrupt and
// steer keep it (the broker's client points at a socket that does not
// exist, so an accepted --all fails later, exit 1).
func TestAllNeverAnswersAPrompt(t *testing.T) {
	r := &rig{t: t, env: map[string]string{}}
	r.s = &testkit.Server{Bin: testkit.TmuxBin(), Socket: filepath.Join(t.TempDir(), "absent")}
	blocked := "blocked"
	sel, err := selector.Flags{State: &blocked}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	text := "go on"
	for _, c := range []struct {
		req     Request
		refused bool
	}{
		{Request{Name: "approve", All: true}, true},
		{Request{Name: "approve", All: true, Selector: sel, Selected: true}, true},
		{Request{Name: "approve", All: true, DryRun: true}, true},
		{Request{Name: "answer", All: true, Arg: []string{"2"}}, true},
		{Request{Name: "steer", All: true, Text: &text, Force: true}, true},
		{Request{Name: "compact", All: true, Force: true}, true},
		{Request{Name: "deny", All: true}, false},
		{Request{Name: "dismiss", All: true}, false},
		{Request{Name: "interrupt", All: true}, false},
		{Request{Name: "interrupt", All: true, Force: true}, false},
		{Request{Name: "steer", All: true, Text: &text}, false},
		{Request{Name: "steer_now", All: true, Text: &text}, false},
		{Request{Name: "approve", Pane: "%1"}, false},
	} {
		code := r.broker(c.req).Fire()
		switch {
		case c.refused && (code != act.ExitUsage || !strings.Contains(r.stderr.String(), "one prompt at a time")):
			t.Errorf("%s --all (force %v): exit %d, stderr %q; want 2 and the reason", c.req.Name, c.req.Force, code, r.stderr.String())
		case !c.refused && code == act.ExitUsage:
			t.Errorf("%s (all %v, force %v): refused as usage: %s", c.req.Name, c.req.All, c.req.Force, r.stderr.String())
		}
	}
}

// swapTmux is a tmux for the broker that, on the batch that carries the
// keys, first does what an agent's hook does when a question replaces the
// permission prompt (blocked/question, newer evidence), then runs the batch:
// the race between the broker's read under the lock and its send, forced.
func swapTmux(t *testing.T, s *testkit.Server, pane string) string {
	t.Helper()
	w := filepath.Join(t.TempDir(), "tmux")
	script := "#!/bin/sh\n" +
		"sf=\nfor a; do [ \"$a\" = source-file ] && sf=1; done\n" +
		"if [ -n \"$sf\" ]; then\n" +
		"  in=$(cat)\n" +
		"  case $in in *send-keys*)\n" +
		"    '" + s.Bin + "' -S '" + s.Socket + "' set -p -t " + pane + " @agent_detail question \\; set -p -t " + pane + " @agent_evidence_at $(($(date +%s) * 1000 + 999)) ;;\n" +
		"  esac\n" +
		"  printf '%s\\n' \"$in\" | exec '" + s.Bin + "' \"$@\"\n" +
		"fi\n" +
		"exec '" + s.Bin + "' \"$@\"\n"
	if err := os.WriteFile(w, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestKeysNeverLandOnTheReplacingPrompt: approve read a permission prompt
// under its lock, and a question replaced it before the keys went out: the
// send is guarded in the same tmux command on the tuple that read saw, so
// nothing reaches the question and the fire is refused (gated, exit 4).
func TestKeysNeverLandOnTheReplacingPrompt(t *testing.T) {
	r := newRig(t)
	a, in := r.s.StartRecordingAgent("claude", claudeBlocked)
	r.settle(a.Pane, "blocked")

	b := r.broker(Request{Name: "approve", Pane: a.Pane, JSON: true})
	b.Tmux = tmux.New(swapTmux(t, r.s, a.Pane), tmux.Target{SocketPath: r.s.Socket})
	code := b.Fire()
	time.Sleep(300 * time.Millisecond) // a key that went out has landed
	if s := sent(t, in); s != "" {
		t.Fatalf("the keys reached the question: the pane received %q (exit %d, %s)", s, code, r.stderr.String())
	}
	if code != act.ExitRefused {
		t.Fatalf("exit %d, want 4: %s %s", code, r.stdout.String(), r.stderr.String())
	}
	if res := decode(t, r.stdout.String()); res.Outcome != act.OutcomeRefused || res.ReasonString() != act.ReasonGated {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(r.stderr.String(), "question") {
		t.Errorf("the refusal does not say what replaced the prompt: %s", r.stderr.String())
	}
	if v := r.s.Option(a.Pane, act.LockOption); v != "" {
		t.Errorf("the lock was not released: %q", v)
	}
	// Unraced, the same guard lets the keys through.
	r.s.MustRun("set", "-p", "-t", a.Pane, "@agent_detail", "permission")
	if code := r.broker(Request{Name: "approve", Pane: a.Pane}).Fire(); code != act.ExitOK {
		t.Fatalf("unraced approve: exit %d %s", code, r.stderr.String())
	}
	waitSent(t, in, "1")
}

// TestDryRunBinds: a dry run reads --expect-episode-ms and
// --expect-permission-request against its cycle, as the fire does under
// the lock: a stale value is the refusal the fire would meet (exit 4).
func TestDryRunBinds(t *testing.T) {
	r := newRig(t)
	a, in := r.s.StartRecordingAgent("claude", claudeBlocked)
	r.settle(a.Pane, "blocked")

	stale := int64(1)
	if code := r.broker(Request{Name: "approve", Pane: a.Pane, DryRun: true, ExpectEpisodeMS: &stale}).Fire(); code != act.ExitRefused {
		t.Errorf("stale episode: exit %d, want 4:\n%s", code, r.stdout.String())
	}
	if !strings.Contains(r.stdout.String(), "gate:    refused: "+act.ReasonEpisodeChanged) {
		t.Errorf("stale episode:\n%s", r.stdout.String())
	}
	id := "0123456789abcdef"
	if code := r.broker(Request{Name: "approve", Pane: a.Pane, DryRun: true, ExpectRequest: &id}).Fire(); code != act.ExitRefused {
		t.Errorf("gone request: exit %d, want 4:\n%s", code, r.stdout.String())
	}
	if !strings.Contains(r.stdout.String(), "gate:    refused: "+act.ReasonRequestGone) {
		t.Errorf("gone request:\n%s", r.stdout.String())
	}
	// The live episode is fireable.
	b := r.broker(Request{})
	f, err := b.cycle("", nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, _, _ := b.target(f, a.Pane)
	live := tg.EpisodeMS
	if code := r.broker(Request{Name: "approve", Pane: a.Pane, DryRun: true, ExpectEpisodeMS: &live}).Fire(); code != act.ExitOK {
		t.Errorf("live episode: exit %d:\n%s", code, r.stdout.String())
	}
	time.Sleep(200 * time.Millisecond)
	if s := sent(t, in); s != "" {
		t.Errorf("a dry run sent %q", s)
	}
}

// TestSendGuardOnTmux: tmux reads the send guard as the tuple it names:
// true on exactly that tuple and lock, false when any one term moved, and
// a value carrying a comma, a brace or a # compares as itself.
func TestSendGuardOnTmux(t *testing.T) {
	s := testkit.NewServer(t)
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	lk := act.Lock{ExpiryMS: 99, Nonce: "n", PID: 1, Name: "approve"}
	tu := act.Tuple{State: "blocked", Detail: "permission", Since: 1700, Request: "per_a,b}#c"}
	g := act.SendGuard(tu, lk)
	if !strings.Contains(g, lane.Option) {
		t.Fatalf("the guard does not read %s: %s", lane.Option, g)
	}
	set := func(k, v string) {
		if v == "" {
			s.MustRun("set", "-p", "-u", "-t", pane, k)
			return
		}
		s.MustRun("set", "-p", "-t", pane, k, v)
	}
	holds := func() string { return strings.TrimSpace(s.MustRun("display", "-p", "-t", pane, g)) }
	base := map[string]string{act.LockOption: lk.String(), "@agent_state": "blocked", "@agent_detail": "permission",
		"@agent_since": "1700", lane.Option: "per_a,b}#c"}
	for k, v := range base {
		set(k, v)
	}
	if got := holds(); got != "1" {
		t.Fatalf("the guard on its own tuple reads %q", got)
	}
	for k, moved := range map[string]string{act.LockOption: "99:other:1:deny", "@agent_state": "idle", "@agent_detail": "question",
		"@agent_since": "1800", lane.Option: "per_other"} {
		set(k, moved)
		if got := holds(); got != "0" {
			t.Errorf("%s moved to %q: the guard reads %q", k, moved, got)
		}
		set(k, "")
		if got := holds(); got != "0" {
			t.Errorf("%s unset: the guard reads %q", k, got)
		}
		set(k, base[k])
	}
	// An empty term means the option is unset.
	set("@agent_detail", "")
	set(lane.Option, "")
	if got := strings.TrimSpace(s.MustRun("display", "-p", "-t", pane, act.SendGuard(act.Tuple{State: "blocked", Since: 1700}, lk))); got != "1" {
		t.Errorf("no detail, no request: the guard reads %q", got)
	}
}
