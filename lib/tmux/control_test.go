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
	sid := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s", "#{session_id}"))
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
