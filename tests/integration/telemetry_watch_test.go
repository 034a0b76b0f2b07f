package integration

import (
	"strings"
	"testing"
)

// TestContextGaugeInWatch: the context gauge a Claude pane's statusline
// shim stamped (a captured payload: 2 % of its window, the model
// claude-opus-4-8[1m]) shows in tma watch's table, in the CONTEXT and
// MODEL columns of that pane's row (the half of the "Done when"
// that ls --json does not cover; TestContextStatusline has the JSON row).
func TestContextGaugeInWatch(t *testing.T) {
	e := newEnv(t, laneOff)
	withBins(t, e)
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{"session_id":"`+statuslineSession+`","source":"startup"}`)
	e.shim(a.Pane, capturedStatusline(t, 4))
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_context_pct") == "2" }, "the gauge stamped")
	loc := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{session_name}:#{window_index}.#{pane_index}"))

	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	e.s.MustRun("resize-window", "-t", watch, "-x", "160", "-y", "30")
	e.attach(watch)
	e.waitScreen(watch, "rows drawn", func(s string) bool { return strings.Contains(s, loc) })
	e.s.MustRun("send-keys", "-t", watch, "p")
	scr := e.waitScreen(watch, "the table with the gauge", func(s string) bool {
		return strings.Contains(s, "CONTEXT") && strings.Contains(s, "MODEL") && strings.Contains(s, loc) && strings.Contains(s, "▱▱▱▱▱   2%")
	})
	var row string
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, loc) && strings.Contains(l, "claude") {
			row = l
		}
	}
	if !strings.Contains(row, "▱▱▱▱▱   2%") || !strings.Contains(row, "claude-opus-4-8[1m]") {
		t.Errorf("the pane's row has no gauge or model: %q\n%s", row, scr)
	}
	e.s.MustRun("send-keys", "-t", watch, "q")
	e.waitScreen(watch, "q quits", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })
}
