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
			for n := 0; n < 5; {
				select {
				case l, ok := <-out:
					if !ok {
						t.Fatal("the follower ended")
					}
					if strings.Contains(l, `"pane":"`+a.Pane+`"`) || strings.HasPrefix(l, `{"schema":1,"agents":[`) || strings.Contains(l, `"kind":"cycle"`) {
						n++
					}
				case <-time.After(15 * time.Second):
					t.Fatal("the follower printed nothing for 15s")
				}
			}
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
