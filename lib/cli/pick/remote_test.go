package pickcmd

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tui"
	"github.com/tmaproject/tma/lib/watch"
)

func headerText(it watch.Item) string {
	return tui.Strip(watch.ListLines([]watch.Item{it}, 120)[0])
}

// A remote's rows come keyed host:pane in pick order and selected like
// local ones; a remote with none is a header saying why; a down host's
// rows are left out of the picker's stable order, not shown as gone.
func TestRemoteEntries(t *testing.T) {
	sts := []remote.State{
		{Name: "build", Rows: []record.AgentRow{
			{Pane: "%1", Agent: "claude", State: "idle", Locator: "w:1.0", Host: "build"},
			{Pane: "%2", Agent: "codex", State: "blocked", Locator: "w:2.0", Host: "build"},
		}},
		{Name: "dead", Err: &remote.TimeoutError{After: 2 * time.Second}},
		{Name: "vm", Pending: true},
		{Name: "ro", Err: &remote.RefusedError{Code: "scope-denied", Message: "not paired"}},
		{Name: "odd", Err: errors.New("not a serve frame: hi")},
	}
	ents, heads, down := remoteEntries(sts, nil)
	var keys []string
	for _, e := range ents {
		keys = append(keys, e.key)
	}
	if strings.Join(keys, " ") != "build:%2 build:%1" {
		t.Errorf("keys %q (want pick order)", keys)
	}
	var hs []string
	for _, h := range heads {
		hs = append(hs, headerText(h))
	}
	want := "✗ dead: unreachable (timeout 2s)|✗ vm: connecting…|✗ ro: refused (scope-denied: not paired)|✗ odd: failed (not a serve frame: hi)"
	if strings.Join(hs, "|") != want {
		t.Errorf("headers %q", strings.Join(hs, "|"))
	}
	if !down["dead"] || !down["vm"] || down["build"] {
		t.Errorf("down %v", down)
	}
	st := "blocked"
	sel, err := selector.Flags{State: &st}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if ents, _, _ := remoteEntries(sts, sel); len(ents) != 1 || ents[0].key != "build:%2" {
		t.Errorf("--state blocked kept %+v", ents)
	}

	u := &surface{seen: map[string]entry{}}
	u.stable(ents, nil)
	// build goes down: its rows leave the frame rather than read gone.
	if got := u.stable(nil, map[string]bool{"build": true}); len(got) != 0 {
		t.Errorf("a down host's rows: %+v", got)
	}
	// Up again with %2 gone: now it is gone.
	if got := u.stable([]entry{ents[0]}, nil); len(got) != 2 || got[0].key != "build:%2" || got[0].gone || !got[1].gone {
		t.Errorf("after the host came back: %+v", got)
	}
}
