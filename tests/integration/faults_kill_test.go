package integration

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// kill -9 of any stage of a follow pipeline ends the whole pipeline: every
// stage and the scan's control client are gone within a couple of seconds,
// and the consumer's stdout reaches EOF.
func TestKillNineEachStage(t *testing.T) {
	for _, stage := range []string{"tma-scan", "tma-stamp", "tma-wait"} {
		t.Run(stage, func(t *testing.T) {
			e := newEnv(t, "")
			e.s.StartAgent("claude", claudeWorking)
			tag := "TMA_FAULT_TAG=" + strings.ReplaceAll(t.Name(), "/", "-")
			_, out := e.startTagged(tag, "dash", binDir+"/tma", "-L", e.s.Name, "subscribe", "--json", "--interval", "200ms")
			ls := lines(out)
			e.awaitPipeline(t, tag)
			killed := false
			for pid, comm := range tagged(t, tag) {
				if comm == stage {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					killed = true
				}
			}
			if !killed {
				t.Fatalf("no %s in the pipeline: %v", stage, tagged(t, tag))
			}
			deadline := time.Now().Add(3 * time.Second)
			for {
				left := tagged(t, tag)
				if len(left) == 0 && e.controlClients() == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after kill -9 of %s: left %v, %d control client(s)", stage, left, e.controlClients())
				}
				time.Sleep(50 * time.Millisecond)
			}
			for range ls { // drains to EOF, or the test times out
			}
		})
	}
}

// The server killed mid-stream: subscribe ends, non-zero, with one clear
// line, and leaves nothing behind.
func TestServerKilledUnderSubscribe(t *testing.T) {
	e := newEnv(t, "")
	e.s.StartAgent("claude", claudeWorking)
	tag := "TMA_FAULT_TAG=server-killed"
	cmd, out := e.startTagged(tag, "dash", binDir+"/tma", "-L", e.s.Name, "subscribe", "--json", "--interval", "200ms")
	ls := lines(out)
	e.awaitPipeline(t, tag)
	e.s.MustRun("kill-server")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("subscribe exited 0 after its server died")
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("subscribe outlived its server by 5 s: %v", tagged(t, tag))
	}
	for range ls {
	}
	if left := tagged(t, tag); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
