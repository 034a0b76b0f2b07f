package stamp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// TestRollupLine runs the hook's rollup line on a real server and holds it
// to Summary, the grammar a cycle writes: every state's count, zero counts
// left out, counts past 9 (which the zero-cutting pattern must not touch),
// panes with no name or a state outside the four not counted, and the
// scratch option gone afterwards.
func TestRollupLine(t *testing.T) {
	s := testkit.NewServer(t)
	// Window 1: the probe pane; window 2: a crowd. One session.
	probe := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	crowd := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	var panes []string
	for range 13 {
		panes = append(panes, strings.TrimSpace(s.MustRun("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", crowd, "sh")))
		s.MustRun("select-layout", "-t", crowd, "tiled")
	}
	set := func(p, name, state string) {
		s.MustRun("set", "-p", "-t", p, "@agent_name", name)
		s.MustRun("set", "-p", "-t", p, "@agent_state", state)
	}
	set(probe, "claude", "blocked")
	for i, p := range panes {
		switch {
		case i < 11:
			set(p, "codex", "idle") // 11: two digits, ending in 1
		case i == 11:
			set(p, "", "working") // no name: not counted
		default:
			set(p, "pi", "thinking") // another tool's token: not counted
		}
	}
	set(crowd, "gemini", "unknown")
	if _, err := RollupLine("1; kill-server"); err == nil {
		t.Fatal("RollupLine took a pane id that is not %N")
	}
	run := func(pane string) (string, string) {
		t.Helper()
		f := filepath.Join(t.TempDir(), "line")
		l, _ := RollupLine(pane)
		if err := os.WriteFile(f, []byte(l+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s.MustRun("source-file", f)
		w := strings.TrimSpace(s.MustRun("show-options", "-wqv", "-t", pane, "@agent_summary"))
		ss := strings.TrimSpace(s.MustRun("show-options", "-qv", "-t", pane, "@agent_session_summary"))
		return w, ss
	}
	w, ss := run(probe)
	if want := Summary(map[string]int{"blocked": 1}); w != want {
		t.Errorf("probe window = %q, want %q", w, want)
	}
	if want := Summary(map[string]int{"blocked": 1, "idle": 11, "unknown": 1}); ss != want {
		t.Errorf("session = %q, want %q", ss, want)
	}
	w, _ = run(crowd)
	if want := Summary(map[string]int{"idle": 11, "unknown": 1}); w != want {
		t.Errorf("crowd window = %q, want %q", w, want)
	}
	// Ten idle exactly: "idle:10" ends in 0 and must stay.
	set(panes[10], "codex", "working")
	set(crowd, "gemini", "idle")
	w, _ = run(crowd)
	if want := Summary(map[string]int{"idle": 11, "working": 1}); w != want || !strings.Contains(w, "idle:11") {
		t.Errorf("crowd window = %q, want %q", w, want)
	}
	set(panes[0], "codex", "working")
	w, _ = run(crowd)
	if want := "working:2 idle:10"; w != want {
		t.Errorf("crowd window = %q, want %q", w, want)
	}
	// Nothing left: the rollup is empty.
	for _, p := range append(panes, crowd) {
		s.MustRun("set", "-pu", "-t", p, "@agent_name")
	}
	if w, _ := run(crowd); w != "" {
		t.Errorf("a window with no agent = %q, want empty", w)
	}
	for _, scope := range [][]string{{"-wqv"}, {"-qv"}, {"-gqv"}} {
		if v := strings.TrimSpace(s.MustRun(append(append([]string{"show-options"}, scope...), "-t", probe, rollScratch)...)); v != "" {
			t.Errorf("scratch %s left as %q", rollScratch, v)
		}
	}
}
