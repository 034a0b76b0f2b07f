package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A follower polls only, with no control-mode client on the server, under
// `--no-push` and under `[tmux] control_clients = false` (tmux before 3.7
// can crash on a control client that is still identifying, see
// architecture.md); by default the same subscribe attaches one.
func TestFollowersWithoutControlClients(t *testing.T) {
	needProc(t)
	for i, c := range []struct {
		name, config string
		args         []string
		clients      bool
	}{
		{"default", "", nil, true},
		{"config", "[tmux]\ncontrol_clients = false\n", nil, false},
		{"flag", "", []string{"--no-push"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.config)
			a := e.s.StartAgent("claude", claudeWorking)
			tag := fmt.Sprintf("TMA_NOPUSH_TEST=%d-%d", os.Getpid(), i)
			var argv []string
			if c.args == nil {
				argv = []string{"dash", filepath.Join(binDir, "tma"), "-L", e.s.Name, "subscribe", "--json", "--interval", "200ms"}
			} else {
				// The flag is the scan's own: the raw stage, as a script runs it.
				argv = append([]string{filepath.Join(binDir, "tma-scan"), "-L", e.s.Name, "--follow", "--interval", "200ms"}, c.args...)
			}
			_, so := e.startTagged(tag, argv...)
			out := lines(so)
			// Five documents or cycles: a second of following, well past the
			// first cycle, after which a pusher would have attached.
			awaitLines(t, out, 5, func(l string) bool {
				return strings.Contains(l, `"pane":"`+a.Pane+`"`) || strings.HasPrefix(l, `{"schema":1,"agents":[`) || strings.Contains(l, `"kind":"cycle"`)
			})
			deadline := time.Now().Add(5 * time.Second)
			for c.clients && e.controlClients() == 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if got := e.controlClients() > 0; got != c.clients {
				t.Errorf("control clients attached: %v, want %v", got, c.clients)
			}
		})
	}
}

// With a daemon answering, tma subscribe takes the daemon's pushes and its
// scan attaches no pushers of its own: the one control client it adds is
// its connection for the list and captures. Without a daemon it attaches a
// pusher for the session as well.
func TestFollowerRidesTheDaemonsPushes(t *testing.T) {
	needProc(t)
	for i, withDaemon := range []bool{true, false} {
		t.Run(map[bool]string{true: "daemon", false: "alone"}[withDaemon], func(t *testing.T) {
			e := newEnv(t, "")
			a := e.s.StartAgent("claude", claudeWorking)
			if withDaemon {
				e.ensure()
				// The daemon's own clients first, so they are not counted
				// as the subscriber's.
				e.s.WaitFor(func() bool { return e.controlClients() > 0 }, "the daemon's control clients")
				time.Sleep(500 * time.Millisecond)
			}
			base := e.controlClients()
			tag := fmt.Sprintf("TMA_RIDES_TEST=%d-%d", os.Getpid(), i)
			_, so := e.startTagged(tag, "dash", filepath.Join(binDir, "tma"), "-L", e.s.Name, "subscribe", "--json", "--interval", "200ms")
			out := lines(so)
			// The first snapshot; in push mode a quiet fleet prints no more.
			awaitLines(t, out, 1, func(l string) bool { return strings.Contains(l, `"pane":"`+a.Pane+`"`) })
			want := base + 2 // a pusher for the one session, and the connection
			if withDaemon {
				want = base + 1
			}
			deadline := time.Now().Add(5 * time.Second)
			for e.controlClients() != want && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			// And no more come: a second of 200 ms ticks later.
			time.Sleep(time.Second)
			if got := e.controlClients(); got != want {
				t.Errorf("control clients %d (%d before subscribe), want %d", got, base, want)
			}
		})
	}
}

// awaitLines reads out until n lines have matched, failing when it ends or
// stays silent for 15 s.
func awaitLines(t *testing.T, out <-chan string, n int, match func(string) bool) {
	t.Helper()
	for n > 0 {
		select {
		case l, ok := <-out:
			if !ok {
				t.Fatal("the follower ended")
			}
			if match(l) {
				n--
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("the follower printed no matching line for 15s (%d still wanted)", n)
		}
	}
}
