package jump

import (
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/record"
)

func row(pane, state string, attn bool, since int64, sess string, win int) *record.Row {
	r := &record.Row{TmuxSession: sess, Window: win}
	r.Row = record.AgentRow{Pane: pane, Agent: "claude", State: state, Attention: attn, Done: state == "idle" && attn, Since: &since, Locator: sess}
	return r
}

func TestTrail(t *testing.T) {
	var tr []string
	for i := 0; i < 10; i++ {
		tr = Push(tr, "%"+string(rune('0'+i)))
	}
	if len(tr) != TrailCap || tr[0] != "%2" || tr[7] != "%9" {
		t.Fatalf("capped trail = %v", tr)
	}
	if got := Push([]string{"%1"}, "%1"); len(got) != 1 {
		t.Errorf("pushed the top twice: %v", got)
	}
	live := func(p string) bool { return p != "%3" }
	dest, rest := Replay(Back, []string{"%1", "%2", "%3"}, live, "%9")
	if dest != "%2" || strings.Join(rest, " ") != "%1" {
		t.Errorf("back over a dead top = %s %v", dest, rest)
	}
	dest, rest = Replay(Home, []string{"%3", "%1", "%2"}, live, "%9")
	if dest != "%1" || rest != nil {
		t.Errorf("home = %s %v", dest, rest)
	}
	if d, _ := Replay(Back, nil, live, "%1"); d != "" {
		t.Errorf("back on empty = %q", d)
	}
	if got := ParseTrail("%1 junk %2"); strings.Join(got, " ") != "%1 %2" {
		t.Errorf("ParseTrail = %v", got)
	}
	if got := TrailOption("/dev/pts/3"); got != "@tma_trail__dev_pts_3" {
		t.Errorf("TrailOption = %q", got)
	}
}

func TestTarget(t *testing.T) {
	rows := []*record.Row{
		row("%4", "blocked", false, 300, "b", 0),
		row("%3", "blocked", true, 100, "a", 2),
		row("%2", "idle", true, 50, "a", 1),
		row("%1", "working", false, 10, "a", 0),
	}
	fleet.PickOrder(rows)
	if rows[0].Row.Pane != "%3" || rows[1].Row.Pane != "%4" || rows[2].Row.Pane != "%2" {
		t.Fatalf("pick order: %s %s %s", rows[0].Row.Pane, rows[1].Row.Pane, rows[2].Row.Pane)
	}
	for _, c := range []struct {
		d         Direction
		cur, want string
	}{
		{Blocked, "%9", "%3"}, {Blocked, "%3", "%4"}, {Attention, "%9", "%3"},
		{Next, "%9", "%1"}, {Next, "%1", "%2"}, {Next, "%4", "%1"},
	} {
		r, note := Target(c.d, rows, c.cur)
		if r == nil || r.Row.Pane != c.want {
			t.Errorf("Target(%d, from %s) = %v %q, want %s", c.d, c.cur, r, note, c.want)
		}
	}
	if r, note := Target(Attention, rows[3:], "%9"); r != nil || note != "no agents waiting for you in scope" {
		t.Errorf("no attention: %v %q", r, note)
	}
}

func TestMenuLineQuotes(t *testing.T) {
	r := row("%5", "blocked", true, 1000, "s", 0)
	r.Row.Title = "it's #{danger}\x07"
	l, err := MenuLine("/dev/pts/1", "tma agents", []*record.Row{r}, []string{"/x/tma", "-S", "/tmp/sock"}, func(string) string { return "⚑" }, 61000, "0.1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l, "run-shell -b -d 0.1 -C ") || strings.Contains(l, "\x07") || !strings.Contains(l, "####{danger}") {
		t.Errorf("menu line = %s", l)
	}
	if !strings.Contains(l, "jump --pane %5") || !strings.Contains(l, "1m") {
		t.Errorf("menu line lacks the entry: %s", l)
	}
}

// TestWhereIsThisServersOnly: $TMUX_PANE and $TMUX's session place this
// process on the server a cycle observed only when $TMUX names that
// server; from inside another server (a picker given -L/-S) the same pane
// id is another server's pane, and the acting client is not the one
// showing it (issue 27 item 24: the picker left out the only agent, %1,
// because $TMUX_PANE was %1 on another server).
func TestWhereIsThisServersOnly(t *testing.T) {
	f := &fleet.Fleet{Cycle: &record.Cycle{Server: "/tmp/tmux-1/work", Clients: []record.Client{
		{Name: "/dev/pts/1", Pane: "%1", Session: "s", Activity: 1},
		{Name: "/dev/pts/2", Pane: "%2", Session: "t", Activity: 2},
	}}, Panes: []*record.Pane{{Pane: "%1", Session: "s", SessionID: "$0"}, {Pane: "%2", Session: "t", SessionID: "$1"}}}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		name   string
		env    func(string) string
		here   Here
		client string
	}{
		{"outside tmux", env(), Here{}, "/dev/pts/2"},
		{"in a pane of this server", env("TMUX", "/tmp/tmux-1/work,9,0", "TMUX_PANE", "%1"), Here{Inside: true, Pane: "%1", SessionID: "$0"}, "/dev/pts/1"},
		{"in a popup on this server", env("TMUX", "/tmp/tmux-1/work,9,0"), Here{Inside: true, SessionID: "$0"}, "/dev/pts/1"},
		{"in a pane of another server", env("TMUX", "/tmp/tmux-1/other,7,0", "TMUX_PANE", "%1"), Here{}, "/dev/pts/2"},
	} {
		if got := Where(f, c.env); got != c.here {
			t.Errorf("%s: Where = %+v, want %+v", c.name, got, c.here)
		}
		if cl, err := ResolveClient(f, "", c.env); err != nil || cl.Name != c.client {
			t.Errorf("%s: client %q (%v), want %q", c.name, cl.Name, err, c.client)
		}
	}
}
