package tmux_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// PaneOptions reads one pane's fields and options in one spawn; a value
// may hold the separator; a pane that is gone is ErrPaneGone.
func TestPaneOptions(t *testing.T) {
	s := testkit.NewServer(t)
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	s.MustRun("set-option", "-p", "-t", pane, "@agent_name", "claude")
	s.MustRun("set-option", "-p", "-t", pane, "@agent_transcript", "/tmp/a\x1fb.jsonl")
	c := tmux.New(s.Bin, tmux.Target{SocketName: s.Name})
	got, err := c.PaneOptions(context.Background(), pane, []string{"@agent_name", "@agent_session", "@agent_transcript"})
	if err != nil {
		t.Fatal(err)
	}
	if got["@agent_name"] != "claude" || got["@agent_session"] != "" || got["@agent_transcript"] != "/tmp/a\x1fb.jsonl" {
		t.Errorf("options %q", got)
	}
	if c.Spawns != 1 {
		t.Errorf("%d tmux spawns for one pane's options", c.Spawns)
	}
	if _, err := c.PaneOptions(context.Background(), "%999", []string{"@agent_name"}); !errors.Is(err, tmux.ErrPaneGone) {
		t.Errorf("a pane that is gone: %v", err)
	}
	if _, err := c.PaneOptions(context.Background(), "s:0", []string{"@agent_name"}); err == nil {
		t.Error("a target that is not a pane id was read")
	}
}
