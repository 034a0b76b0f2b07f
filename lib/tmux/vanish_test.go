package tmux

import (
	"context"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// A pane closed between the list and the capture, or before the write,
// costs only its own line: the other panes are captured and written.
func TestPaneClosedMidCycle(t *testing.T) {
	s := testkit.NewServer(t)
	live := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	gone := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	s.MustRun("send-keys", "-t", live, "echo still-here", "Enter")
	s.MustRun("kill-pane", "-t", gone)
	c := New(s.Bin, Target{SocketName: s.Name})
	screens, err := c.Capture(context.Background(), []string{gone, live})
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	if _, ok := screens[gone]; ok {
		t.Errorf("a screen for the closed pane %s", gone)
	}
	s.WaitFor(func() bool {
		screens, _ = c.Capture(context.Background(), []string{gone, live})
		return strings.Contains(screens[live], "still-here")
	}, "the live pane captured beside the closed one")
	var lines []string
	for _, p := range []string{gone, live} {
		l, err := Write{Pane: p, Guard: "", Sets: []Set{{Name: "@agent_state", Value: "idle"}}}.Line()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if _, err := c.Exec(context.Background(), lines); err != nil {
		t.Fatalf("exec: %v", err)
	}
	if got := s.Option(live, "@agent_state"); got != "idle" {
		t.Errorf("the live pane was not written after the closed one's line failed: %q", got)
	}
}
