package tmux_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// controlClients lists the control-mode clients attached to the server.
func controlClients(s *testkit.Server) []string {
	out, _ := s.Run("list-clients", "-F", "#{client_control_mode} #{client_pid}")
	var pids []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if p, ok := strings.CutPrefix(l, "1 "); ok {
			pids = append(pids, p)
		}
	}
	return pids
}

// Close leaves no control client behind: when it returns the clients are
// reaped, and the server lets go of them at once.
func TestPusherCloseDetaches(t *testing.T) {
	s := testkit.NewServer(t)
	sid := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{session_id}"))
	p := tmux.New(s.Bin, tmux.Target{SocketName: s.Name}).NewPusher()
	if n := p.Sync([]string{sid}); n != 1 {
		t.Fatalf("Sync watched %d sessions, want 1", n)
	}
	s.WaitFor(func() bool { return len(controlClients(s)) == 1 }, "a control client attached")
	p.Close()
	if p.Watched() != 0 {
		t.Fatalf("%d clients still watched after Close", p.Watched())
	}
	deadline := time.Now().Add(time.Second)
	for len(controlClients(s)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("control clients %v still attached 1s after Close", controlClients(s))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Output in a watched pane is reported by TakeOutput under the pane's id,
// once: the next take has forgotten it.
func TestPusherTakeOutput(t *testing.T) {
	s := testkit.NewServer(t)
	sid := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{session_id}"))
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	p := tmux.New(s.Bin, tmux.Target{SocketName: s.Name}).NewPusher()
	defer p.Close()
	if n := p.Sync([]string{sid}); n != 1 {
		t.Fatalf("Sync watched %d sessions, want 1", n)
	}
	s.WaitFor(func() bool { return len(controlClients(s)) == 1 }, "a control client attached")
	before := time.Now().UnixMilli()
	got := map[string]int64{}
	s.WaitFor(func() bool {
		s.MustRun("send-keys", "-t", pane, "echo out", "Enter")
		for k, v := range p.TakeOutput() {
			got[k] = v
		}
		return got[pane] > 0
	}, "TakeOutput to report "+pane)
	if got[pane] < before {
		t.Fatalf("output at %d, before the keys were sent (%d)", got[pane], before)
	}
	if len(got) != 1 {
		t.Fatalf("TakeOutput reported %v, want only %s", got, pane)
	}
	time.Sleep(200 * time.Millisecond)
	p.TakeOutput()
	if again := p.TakeOutput(); len(again) != 0 {
		t.Fatalf("a second take with no output in between reported %v", again)
	}
}
