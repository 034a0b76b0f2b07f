package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// The cycle's list reads every option of a pane that carries @agent_name,
// only the standalone ones of a pane that does not, and values come back
// as set, whatever they hold.
func TestListReadsOptionsBehindTheName(t *testing.T) {
	s := testkit.NewServer(t)
	named := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	unnamed := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	bare := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	value := func(o string) string { return "v" + o + ", #{pane_id} } #[x]" }
	for _, o := range tmux.OptionNames {
		s.MustRun("set-option", "-p", "-t", named, o, value(o))
		if o != "@agent_name" {
			s.MustRun("set-option", "-p", "-t", unnamed, o, value(o))
		}
	}
	snap, err := client(s).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	alone := map[string]bool{}
	for _, o := range tmux.StandaloneOptions {
		alone[o] = true
	}
	got := map[string]map[string]string{}
	for _, p := range snap.Panes {
		got[p.ID] = p.Opts
	}
	for _, o := range tmux.OptionNames {
		if v := got[named][o]; v != value(o) {
			t.Errorf("%s on the named pane = %q, want %q", o, v, value(o))
		}
		want := ""
		if alone[o] && o != "@agent_name" {
			want = value(o)
		}
		if v := got[unnamed][o]; v != want {
			t.Errorf("%s on the pane without @agent_name = %q, want %q", o, v, want)
		}
	}
	if len(got[bare]) != 0 {
		t.Errorf("a bare pane has options %v", got[bare])
	}
}
