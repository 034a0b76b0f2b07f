package watch

import (
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tui"
)

func TestKey(t *testing.T) {
	if k := Key("build", "%3"); k != "build:%3" {
		t.Errorf("key %q", k)
	}
	for key, want := range map[string][2]string{"build:%3": {"build", "%3"}, "%3": {"", "%3"}, "": {"", ""}, "a.b-c:%10": {"a.b-c", "%10"}} {
		if h, p := SplitKey(key); h != want[0] || p != want[1] {
			t.Errorf("SplitKey(%q) = %q %q", key, h, p)
		}
	}
}

// Remote rows carry their host's label and key; every row gets a host
// column once any has one; a remote's header is one dimmed line after the
// rows, never a group member and never selectable.
func TestRemoteItems(t *testing.T) {
	cfg := config.Default()
	since := int64(1000)
	rows := []*record.Row{{Row: record.AgentRow{Pane: "%3", Agent: "claude", State: "blocked", Locator: "w:1.0", Since: &since}}}
	its := append(testItems()[:1], RemoteItems("build", rows, 6000, cfg)...)
	Label(its, "laptop")
	its = append(its, Header("dead: unreachable (timeout 2s)"))
	if its[1].Pane != "build:%3" || its[1].host != "build" || its[0].host != "laptop" || its[1].age != "5s" {
		t.Fatalf("items %+v", its)
	}
	for _, grouped := range []bool{false, true} {
		lines := watchLines(its, 120, false, grouped)
		last := lines[len(lines)-1]
		if last.pane != "" || tui.Strip(last.text) != "✗ dead: unreachable (timeout 2s)" || !strings.HasPrefix(last.text, "\x1b[2m") {
			t.Errorf("grouped %v: the header line %q", grouped, last.text)
		}
		var hosts []string
		for _, l := range lines {
			if l.pane != "" {
				hosts = append(hosts, strings.Fields(tui.Strip(l.text))[1])
			}
		}
		if strings.Join(hosts, " ") != "laptop build" {
			t.Errorf("grouped %v: host column %q", grouped, hosts)
		}
	}
	th := tui.Strip(tableHeader(measure(its), 120))
	if !strings.HasPrefix(strings.TrimSpace(th), "HOST    AGENT") {
		t.Errorf("table header %q", th)
	}
	// With no remote in view nothing changes: no host column.
	if l := tui.Strip(listLine(testItems()[0], measure(testItems()), 120)); strings.Contains(l, "laptop") || !strings.HasPrefix(l, "⚑ claude") {
		t.Errorf("a local-only line %q", l)
	}
	m := NewModel(120, 10)
	m.SetRows(its)
	m.Key("end")
	if m.Selected() != "build:%3" {
		t.Errorf("End selected %q, not the last row", m.Selected())
	}
}
