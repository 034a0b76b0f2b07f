package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// sessionsOf counts the ssh sessions sshd accepted so far.
func sessionsOf(d *testkit.SSHD) int { return strings.Count(d.Log(), "Accepted publickey") }

// servesOf counts the `tma serve --stdio` processes serving socket: one per
// ssh session the far host is holding open.
func servesOf(socket string) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(argv) > 0 && filepath.Base(argv[0]) == "tma-serve" && strings.Contains(string(b), "\x00--socket-path="+socket+"\x00") {
			n++
		}
	}
	return n
}

// stable is an ls --json document without the fields a far host restamps
// between two asks of the same rows (a working agent's stamped_at_ms).
func stable(t *testing.T, out string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	agents, _ := doc["agents"].([]any)
	for _, a := range agents {
		delete(a.(map[string]any), "stamped_at_ms")
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// With a daemon running, ls --host and status --host ask it, and it
// answers over the one ssh connection it holds per remote: the second ls
// starts no ssh session, the rows are the host's current ones (an agent
// started between two asks is in the second), and everything printed and
// every exit code is what the dial path (no daemon, or TMA_REMOTE_DIAL=1)
// gives, a hung remote's one line and its timeout included.
func TestRemoteLsThroughDaemon(t *testing.T) {
	sshd, far, near, _, l, cfg := buildAndDead(t)

	// The dial path: no daemon.
	dialOut, dialErrs, dialCode := near.tma("ls", "--json", "--host", "build")
	if dialCode != 0 || dialErrs != "" || strings.Count(dialOut, `"host":"build"`) != 2 {
		t.Fatalf("ls --host build, no daemon: exit %d %s %s", dialCode, dialOut, dialErrs)
	}
	if n := sessionsOf(sshd); n != 1 {
		t.Fatalf("the dial path made %d ssh sessions", n)
	}

	near.ensure()
	out, errs, code := near.tma("ls", "--json", "--host", "build")
	if stable(t, out) != stable(t, dialOut) || errs != dialErrs || code != dialCode {
		t.Fatalf("the first ls through the daemon: exit %d %s %s\nthe dial path's: %s", code, out, errs, dialOut)
	}
	held := sessionsOf(sshd)
	if held != 2 || servesOf(far.s.Socket) != 1 {
		t.Fatalf("after the daemon's first ask: %d sessions, %d serves on the far side", held, servesOf(far.s.Socket))
	}
	out, errs, code = near.tma("ls", "--json", "--host", "build")
	if stable(t, out) != stable(t, dialOut) || errs != dialErrs || code != dialCode {
		t.Errorf("the second ls through the daemon: exit %d %s %s\nthe dial path's: %s", code, out, errs, dialOut)
	}
	if n := sessionsOf(sshd); n != held || servesOf(far.s.Socket) != 1 {
		t.Errorf("the second ls started an ssh session: %d sessions (was %d), %d serves", n, held, servesOf(far.s.Socket))
	}

	// Current, not cached: a new agent on the far host is in the next ask.
	c := far.s.StartAgent("claude", claudeIdle)
	far.expect(c.Pane, "idle")
	out, _, code = near.tma("ls", "--json", "--host", "build")
	if code != 0 || strings.Count(out, `"host":"build"`) != 3 || !strings.Contains(out, `"pane":"`+c.Pane+`"`) {
		t.Errorf("the far host's new agent is not in the daemon's answer: %s", out)
	}
	dialOut, dialErrs, dialCode = near.tmaEnv([]string{"TMA_REMOTE_DIAL=1"}, "ls", "--json", "--host", "build")
	if stable(t, out) != stable(t, dialOut) || dialCode != 0 || dialErrs != "" {
		t.Errorf("daemon path %s\ndial path %s %s", out, dialOut, dialErrs)
	}

	// --host all with a hung remote: the same rows, the same one line, the
	// same exit either way, and the hung remote costs its timeout.
	var took [2]time.Duration
	var outs, errss [2]string
	var codes [2]int
	for i, extra := range [][]string{nil, {"TMA_REMOTE_DIAL=1"}} {
		start := time.Now()
		outs[i], errss[i], codes[i] = near.tmaEnv(extra, "ls", "--json", "--host", "all")
		took[i] = time.Since(start)
	}
	if stable(t, outs[0]) != stable(t, outs[1]) || errss[0] != errss[1] || codes[0] != codes[1] || codes[0] != 0 {
		t.Errorf("--host all: daemon exit %d %s %q\ndial exit %d %s %q", codes[0], outs[0], errss[0], codes[1], outs[1], errss[1])
	}
	if errss[0] != "tma: warning: remote dead: no answer in 700ms\n" || strings.Count(outs[0], `"host":"build"`) != 3 || !strings.Contains(outs[0], `"pane":"`+l.Pane+`"`) {
		t.Errorf("--host all through the daemon: %s %q", outs[0], errss[0])
	}
	if took[0] > 60*time.Second {
		t.Errorf("--host all through the daemon took %s with a hung remote", took[0])
	}

	for _, args := range [][]string{
		{"status", "--format", "plain", "--host", "build"},
		{"status", "--format", "plain", "--host", "all"},
		{"ls", "--host", "build", "--state", "blocked"},
	} {
		o, e, c := near.tma(args...)
		do, de, dc := near.tmaEnv([]string{"TMA_REMOTE_DIAL=1"}, args...)
		if o != do || e != de || c != dc || c != 0 {
			t.Errorf("%v: daemon exit %d %q %q, dial exit %d %q %q", args, c, o, e, dc, do, de)
		}
	}
	// Each TMA_REMOTE_DIAL run above is one session (ls --host build,
	// --host all, and the three of the loop); none of the daemon's asks
	// after its first is.
	if n := sessionsOf(sshd); n != held+5 || servesOf(far.s.Socket) != 1 {
		t.Errorf("%d ssh sessions, want %d; %d serves on the far side", n, held+5, servesOf(far.s.Socket))
	}

	// A --config whose entry differs from the daemon's (another timeout):
	// the daemon refuses it, and ls dials it itself, with the same rows.
	other := filepath.Join(t.TempDir(), "other.toml")
	if err := os.WriteFile(other, []byte(strings.Replace(cfg, "timeout_ms = 30000", "timeout_ms = 29000", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := sessionsOf(sshd)
	out, errs, code = near.tma("--config", other, "ls", "--json", "--host", "build")
	if code != 0 || errs != "" || stable(t, out) != stable(t, dialOut) || sessionsOf(sshd) != before+1 {
		t.Errorf("another config's entry: exit %d %s %s, %d new sessions", code, out, errs, sessionsOf(sshd)-before)
	}
}
