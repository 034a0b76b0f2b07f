package scan

import (
	"slices"
	"testing"

	"github.com/tmaproject/tma/lib/record"
)

func TestStreamed(t *testing.T) {
	pane := func(id, win, sess string, f func(*record.Pane)) *record.Pane {
		p := &record.Pane{Pane: id, WindowID: win, SessionID: sess, Opts: map[string]string{}}
		if f != nil {
			f(p)
		}
		return p
	}
	agent := func(p *record.Pane) { p.Agent = "claude" }
	stamped := func(p *record.Pane) { p.Opts["@agent_state"] = "idle" }
	muted := func(p *record.Pane) { p.Opts["@agent_mute_until"] = "99" }
	remote := func(p *record.Pane) { p.Class = record.ClassRemote }
	staleWin := func(p *record.Pane) { p.WindowSummary = "idle:1" }
	staleSess := func(p *record.Pane) { p.SessionSummary = "idle:1" }
	for _, c := range []struct {
		name   string
		scoped bool
		panes  []*record.Pane
		want   []string
	}{
		{"shells only, nothing stored", false, []*record.Pane{pane("%0", "@0", "$0", nil), pane("%1", "@0", "$0", nil)}, nil},
		{"an agent and its window's shells", false, []*record.Pane{pane("%0", "@0", "$0", nil), pane("%1", "@0", "$0", agent), pane("%2", "@0", "$0", staleWin)}, []string{"%1"}},
		{"options, a class", false, []*record.Pane{pane("%0", "@0", "$0", stamped), pane("%1", "@1", "$0", muted), pane("%2", "@2", "$0", remote), pane("%3", "@2", "$0", nil)}, []string{"%0", "%1", "%2"}},
		{"a stale window rollup sends one carrier", false, []*record.Pane{pane("%0", "@0", "$0", staleWin), pane("%1", "@0", "$0", staleWin), pane("%2", "@1", "$0", nil)}, []string{"%0"}},
		{"a stale session rollup sends one carrier per window", false, []*record.Pane{pane("%4", "@0", "$1", staleSess), pane("%5", "@0", "$1", staleSess), pane("%6", "@1", "$1", staleSess)}, []string{"%4", "%6"}},
		{"carriers keep pane order", false, []*record.Pane{pane("%0", "@0", "$0", staleWin), pane("%1", "@1", "$0", agent)}, []string{"%0", "%1"}},
		{"a scoped scan carries its pane", true, []*record.Pane{pane("%3", "@0", "$0", nil)}, []string{"%3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Cycle: &record.Cycle{Scoped: c.scoped}, Panes: c.panes}
			var got []string
			for _, p := range r.Streamed() {
				got = append(got, p.Pane)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("Streamed = %v, want %v", got, c.want)
			}
		})
	}
}
