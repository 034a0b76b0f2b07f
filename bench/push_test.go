package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// BenchmarkPushLatency measures, end to end, how long a screen change takes
// to reach a `tma subscribe --json --events` line: in follow mode (control-
// mode pushes) and in poll mode (--no-push, one cycle a second). The fake
// agent repaints on SIGUSR2, so the clock starts at the change itself.
// Target (follow mode): under 250 ms.
func BenchmarkPushLatency(b *testing.B) {
	if _, err := exec.LookPath(testkit.TmuxBin()); err != nil {
		b.Skip("no tmux")
	}
	dir := b.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", dir+"/", "../cmd/tma-scan", "../cmd/tma-fold", "../cmd/tma-stamp", "../cmd/tma-wait")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build links them: static
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	for _, mode := range []string{"follow", "poll"} {
		b.Run(mode, func(b *testing.B) {
			s := testkit.NewServer(b)
			screen := filepath.Join(dir, mode+"-screen")
			working := "# title: ✳ x\n---\n✶ Pondering… (5s · ↓ 1 tokens)\n\n" + strings.Repeat("─", 40) + "\n❯ \n" + strings.Repeat("─", 40) + "\n"
			blocked := "# title: ✳ x\n---\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n"
			if err := os.WriteFile(screen, []byte(working), 0o644); err != nil {
				b.Fatal(err)
			}
			bin := testkit.FakeAgent(b, "claude")
			pane := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", "set -m; "+bin+" "+screen+"; exec sh"))
			// The agent is the shell's child (pgrep -f would also match the
			// shell, whose command line names the agent, and SIGUSR2 kills a shell).
			var agentPID int
			s.WaitFor(func() bool {
				shell := strings.TrimSpace(s.MustRun("display", "-p", "-t", pane, "#{pane_pid}"))
				out, _ := exec.Command("pgrep", "-P", shell, "-x", "claude").Output()
				agentPID, _ = strconv.Atoi(strings.TrimSpace(string(out)))
				return agentPID > 0
			}, "fake agent")
			push := ""
			if mode == "poll" {
				push = "--no-push"
			}
			sh := fmt.Sprintf(`"%[1]s/tma-scan" -S %[2]s --follow --interval 1s %[3]s | "%[1]s/tma-fold" | "%[1]s/tma-stamp" | "%[1]s/tma-wait" subscribe --json --events`, dir, s.Socket, push)
			cmd := exec.Command("sh", "-c", sh)
			cmd.Env = append(os.Environ(), "HOME="+dir, "TMA_CONFIG=", "XDG_CONFIG_HOME=", "TMUX=")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
			lines := make(chan time.Time, 16)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					lines <- time.Now()
				}
			}()
			time.Sleep(2 * time.Second) // the silent baseline cycle, control clients attached
			var lat []time.Duration
			screens := []string{blocked, working}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				time.Sleep(time.Duration(300+137*i%700) * time.Millisecond) // land at varied points of the interval
				if err := os.WriteFile(screen, []byte(screens[i%2]), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 := time.Now()
				_ = syscall.Kill(agentPID, syscall.SIGUSR2)
				select {
				case t := <-lines:
					lat = append(lat, t.Sub(t0))
				case <-time.After(10 * time.Second):
					b.Fatalf("%s: no event within 10s", mode)
				}
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			med, max := lat[len(lat)/2], lat[len(lat)-1]
			b.ReportMetric(float64(med.Microseconds())/1000, "med-ms")
			b.ReportMetric(float64(max.Microseconds())/1000, "max-ms")
			if b.N > 1 { // the runner's 1-iteration probe is no measurement
				// On a line of its own: the runner has already printed this benchmark's name.
				fmt.Printf("\npush latency (%s mode): median %.0f ms, max %.0f ms over %d changes\n", mode, float64(med.Microseconds())/1000, float64(max.Microseconds())/1000, len(lat))
			}
		})
	}
}
