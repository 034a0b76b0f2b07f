package arrival

import (
	"reflect"
	"strconv"
	"testing"
)

func TestDecide(t *testing.T) {
	const now = 1_000_000
	fresh := strconv.Itoa(now - 200)
	stale := strconv.Itoa(now - FreshMS - 1)
	// Window @1 holds %1 (active) and %2 (last); window @2 (the session's
	// previous window) holds %3 (active); window @3 is not current.
	base := func() []Pane {
		return []Pane{
			{ID: "%1", Window: "@1", Active: true, WindowActive: true, Attention: true},
			{ID: "%2", Window: "@1", Last: true, WindowActive: true, Attention: true},
			{ID: "%3", Window: "@2", Active: true, WindowLast: true, Attention: true},
			{ID: "%4", Window: "@3", Active: true, Attention: true},
		}
	}
	with := func(id, next string) []Pane {
		ps := base()
		for i := range ps {
			if ps[i].ID == id {
				ps[i].Next = next
			}
		}
		return ps
	}
	for _, c := range []struct {
		name       string
		panes      []Pane
		pane, kind string
		clear      []string
		unmark     []string
	}{
		{"select-pane: arrival and the pane left", base(), "%1", SelectPane, []string{"%1", "%2"}, nil},
		{"select-pane in an unseen window: only the pane left", base(), "%4", SelectPane, nil, nil},
		{"window change: arrival and the previous window's pane", base(), "%1", WindowChanged, []string{"%1", "%3"}, nil},
		{"no kind: arrival only", base(), "%1", "", []string{"%1"}, nil},
		{"a --next arrival clears nothing", with("%1", fresh), "%1", WindowChanged, nil, nil},
		{"a --next arrival by focus clears nothing", with("%1", fresh), "%1", "", nil, nil},
		{"a stale mark spares nothing and goes", with("%1", stale), "%1", WindowChanged, []string{"%1", "%3"}, []string{"%1"}},
		{"leaving a --next destination clears it and retires its mark", with("%3", fresh), "%1", WindowChanged, []string{"%1", "%3"}, []string{"%3"}},
		{"a mark dated ahead is not fresh", with("%1", strconv.Itoa(now+5000)), "%1", "", []string{"%1"}, []string{"%1"}},
		{"garbage is not a mark", with("%1", "x"), "%1", "", []string{"%1"}, []string{"%1"}},
		{"an unknown pane clears nothing", base(), "%9", WindowChanged, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Decide(c.panes, c.pane, c.kind, now)
			var unmark []string
			for _, u := range p.Unmark {
				unmark = append(unmark, u.ID)
			}
			if !reflect.DeepEqual(p.Clear, c.clear) || !reflect.DeepEqual(unmark, c.unmark) {
				t.Errorf("clear %v unmark %v, want %v %v", p.Clear, unmark, c.clear, c.unmark)
			}
		})
	}
}

func TestMarkLine(t *testing.T) {
	l, err := MarkLine("%5", 42)
	if err != nil || l != "set -p -t %5 @tma_next_at 42" {
		t.Errorf("%q %v", l, err)
	}
	if _, err := MarkLine("5; kill-server", 1); err == nil {
		t.Error("a bad pane id made a line")
	}
	if !Fresh("1000", 1000+FreshMS) || Fresh("1000", 1001+FreshMS) || Fresh("", 1) || Fresh("0", 1) {
		t.Error("Fresh")
	}
}
