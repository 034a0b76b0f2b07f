package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
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
		screen := filepath.Join(e.s.Dir, fmt.Sprintf("fx-%d", i))
		body := fmt.Sprintf("# title: %s\n# width: %d\n---\n%s", f.Title, f.Width, f.Screen)
		if err := os.WriteFile(screen, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		sess := fmt.Sprintf("fx%d", i)
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
	t.Logf("%d captured screens replayed", len(want))
	for p, w := range want {
		got := strings.TrimSuffix(rows[p], " attn")
		if w == "unknown" && got == "" {
			continue
		}
		if got != w {
			t.Errorf("%s: got %q, want %q", names[p], rows[p], w)
		}
	}
}
