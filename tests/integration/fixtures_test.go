package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/testkit"
)

// TestCapturedScreensEndToEnd replays every captured real-agent screen in a
// pane of its own size, painted by a fake agent under the agent's process
// name and title, and checks that the whole pipeline (scan, capture, fold,
// stamp, ls) reaches the verdict the fixture's header names.
func TestCapturedScreensEndToEnd(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
	fixtures, err := fixture.LoadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(fixtures) == 0 {
		t.Skip("no captured fixtures")
	}
	ms := load(t)
	// A server of replayCap panes each: one cold cycle captures every agent
	// pane in one tmux call, and all the fixtures on one server (near 300
	// panes) outgrew tmux's 3 s answer under CI load, which no real fleet
	// of agents is near.
	const replayCap = 50
	total := 0
	for lo := 0; lo < len(fixtures); lo += replayCap {
		total += replay(t, ms, fixtures[lo:min(lo+replayCap, len(fixtures))], lo)
	}
	t.Logf("%d captured screens replayed", total)
}

// replay paints fixtures on a server of its own and checks one cycle's
// verdicts; it returns how many it painted.
func replay(t *testing.T, ms *manifest.Set, fixtures []*fixture.Fixture, base int) int {
	t.Helper()
	e := newEnv(t, "")
	want := map[string]string{}
	names := map[string]string{}
	for i, f := range fixtures {
		a := ms.Get(f.Agent)
		if a == nil || len(a.ProcessNames) == 0 {
			t.Errorf("%s: no bundled manifest for %q", f.Name, f.Agent)
			continue
		}
		bin := testkit.FakeAgent(t, a.ProcessNames[0])
		screen := filepath.Join(e.s.Dir, fmt.Sprintf("fx-%d", base+i))
		body := fmt.Sprintf("# title: %s\n# width: %d\n---\n%s", f.Title, f.Width, f.Screen)
		if err := os.WriteFile(screen, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		sess := fmt.Sprintf("fx%d", base+i)
		out := e.s.MustRun("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", sess, "-x", fmt.Sprint(f.Width), "-y", fmt.Sprint(f.Height),
			"sh", "-c", "set -m; "+bin+" "+screen+"; exec sh")
		pane := strings.TrimSpace(out)
		v := f.State
		if f.Detail != "" {
			v += "/" + f.Detail
		}
		want[pane], names[pane] = v, f.Name
	}
	// Every screen painted and its title set before the one cycle that judges them.
	e.s.WaitFor(func() bool {
		out, _ := e.s.Run("list-panes", "-a", "-F", "#{pane_id} #{pane_current_command}")
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 2 && want[f[0]] != "" && f[1] != "sh" {
				n++
			}
		}
		return n == len(want)
	}, "every fake agent in the foreground")
	e.s.WaitFor(func() bool {
		for p := range want {
			if o, _ := e.s.Run("capture-pane", "-p", "-t", p); strings.TrimSpace(o) == "" {
				return false
			}
		}
		return true
	}, "every screen painted")
	rows := e.ls()
	for p, w := range want {
		got := strings.TrimSuffix(rows[p], " attn")
		if w == "unknown" && got == "" {
			continue
		}
		if got != w {
			t.Errorf("%s: got %q, want %q", names[p], rows[p], w)
		}
	}
	return len(want)
}
