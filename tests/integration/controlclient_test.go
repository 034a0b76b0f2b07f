package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/tmux"
)

// A follower's control clients on this server's tmux: on every release
// ControlFor gives tma's own client (3.3 to 3.7c, the three CI runs), they
// live in the scan's own process, so no tmux client process stands
// between, and none is read-only. Then keys sent from outside any client
// reach the watched pane: tmux 3.7 refuses a send-keys whose target client
// (from outside, the session's latest, often a follower's) is read-only.
func TestFollowerControlClients(t *testing.T) {
	needProc(t)
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)
	version := strings.TrimSpace(e.s.MustRun("display", "-p", "#{version}"))
	choice := tmux.ControlFor(version)
	tag := fmt.Sprintf("TMA_CTL_TEST=%d", os.Getpid())
	_, so := e.startTagged(tag, "dash", filepath.Join(binDir, "tma"), "-L", e.s.Name, "subscribe", "--json", "--interval", "200ms")
	awaitLines(t, lines(so), 1, func(l string) bool { return strings.Contains(l, `"pane":"`+a.Pane+`"`) })
	// A pusher for the one session and the connection.
	e.s.WaitFor(func() bool { return e.controlClients() == 2 }, "the follower's two control clients")
	out := e.s.MustRun("list-clients", "-F", "#{client_control_mode} #{client_pid} #{client_flags}")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != "1" {
			continue
		}
		if strings.Contains(f[2], "read-only") {
			t.Errorf("a control client is read-only: %q", l)
		}
		comm, err := os.ReadFile("/proc/" + f[1] + "/comm")
		if err != nil {
			t.Fatalf("control client %q: %v", l, err)
		}
		want := "tma-scan"
		if choice.Mode == tmux.ControlTmux {
			want = "tmux"
		}
		if got := strings.TrimSpace(string(comm)); !strings.HasPrefix(got, want) {
			t.Errorf("tmux %s (%v): control client %q runs in %q, want %s", version, choice.Mode, l, got, want)
		}
	}
	// A plain pane beside the agent, and keys to it from outside any client.
	p := strings.TrimSpace(e.s.MustRun("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", a.Pane, "cat"))
	if _, err := e.s.Run("send-keys", "-t", p, "tma-keys-from-outside", "Enter"); err != nil {
		t.Fatalf("send-keys from outside while a follower watches: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(e.s.MustRun("capture-pane", "-p", "-t", p), "tma-keys-from-outside") {
		if time.Now().After(deadline) {
			t.Fatalf("the keys never reached %s", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
