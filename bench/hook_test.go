package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// BenchmarkHook measures tma-hook from process start to the option being
// readable (the write is synchronous, so: until the process exits), against
// F, a bare list-panes -a of the cycle's format on the same server. Target:
// ≤ 2×F. The server has 40 panes, one of them registered to the agent.
func BenchmarkHook(b *testing.B) {
	if _, err := exec.LookPath(testkit.TmuxBin()); err != nil {
		b.Skip("no tmux")
	}
	dir := b.TempDir()
	build := exec.Command("go", "build", "-o", dir+"/", "../cmd/tma-hook")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	s := testkit.NewServer(b)
	for i := 0; i < 9; i++ {
		s.MustRun("new-window", "-d", "-t", "s:", "sh")
		for j := 0; j < 3; j++ {
			s.MustRun("split-window", "-d", "-t", "s:", "sh")
			s.MustRun("select-layout", "-t", "s:", "tiled")
		}
	}
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:0.0", "#{pane_id}"))
	c := tmux.New(s.Bin, tmux.Target{SocketPath: s.Socket})
	ctx := context.Background()
	f := func() time.Duration {
		t0 := time.Now()
		if _, _, err := c.Run(ctx, "", "list-panes", "-a", "-F", tmux.PaneFormat()); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	hook := func(event, payload string) time.Duration {
		cmd := exec.Command(filepath.Join(dir, "tma-hook"), "claude", event)
		cmd.Env = append(os.Environ(), "TMUX_PANE="+pane, "TMA_SOCKET_PATH="+s.Socket, "TMUX=", "HOME="+dir, "TMA_CONFIG=", "XDG_CONFIG_HOME=")
		cmd.Stdin = strings.NewReader(payload)
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		return time.Since(t0)
	}
	hook("SessionStart", `{"session_id":"bench"}`)
	for i := 0; i < 3; i++ {
		f()
	}
	var fs, hs []time.Duration
	events := []string{"UserPromptSubmit", "Stop"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fs = append(fs, f())
		b.StartTimer()
		hs = append(hs, hook(events[i%2], `{"session_id":"bench","prompt":"x"}`))
	}
	b.StopTimer()
	if got := s.Option(pane, "@agent_source"); got != "hook" {
		b.Fatalf("the hook wrote nothing: @agent_source = %q", got)
	}
	fm, hm := median(fs), median(hs)
	b.ReportMetric(fm, "F-ms")
	b.ReportMetric(hm, "hook-ms")
	b.ReportMetric(hm/fm, "xF")
	fmt.Printf("hook: tma-hook %.2f ms, F %.2f ms, %.2f×F (target ≤ 2×F)\n", hm, fm, hm/fm)
}
