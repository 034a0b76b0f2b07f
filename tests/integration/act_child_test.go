package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledActTakesItsChild: an exec action's child (timeout_ms 2000,
// `sleep 3; echo end`) dies with a tma act killed by SIGKILL: its shell and
// the sleep are gone at once and "end" is never written.
func TestKilledActTakesItsChild(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	dir := t.TempDir()
	pids, end := filepath.Join(dir, "pids"), filepath.Join(dir, "end")
	e.userAction("slowend", "min_engine_version = \"0.1\"\nname = \"slowend\"\nlabel = \"Slow end\"\nkind = \"exec\"\ntimeout_ms = 2000\n"+
		"command = 'sleep 3 & echo \"$$ $!\" > \"$PIDS\"; wait; echo end > \"$END\"'\n")

	cmd := exec.Command(filepath.Join(binDir, "tma-act"), "-L", e.s.Name, "act", "slowend", "--pane", a.Pane)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=",
		"PIDS="+pids, "END="+end)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var procs []int
	e.s.WaitFor(func() bool {
		b, _ := os.ReadFile(pids)
		procs = procs[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				procs = append(procs, n)
			}
		}
		return len(procs) == 2
	}, "the child started")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	killed := time.Now()
	for alive(procs[0]) || alive(procs[1]) {
		if time.Since(killed) > 3*time.Second {
			t.Fatalf("3 s after tma act was killed, its child lives on (sh %v, sleep %v)", alive(procs[0]), alive(procs[1]))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Until(start.Add(3500 * time.Millisecond)))
	if _, err := os.Stat(end); err == nil {
		t.Fatalf("the child outlived the killed tma act and wrote end (stderr %s)", errb.String())
	}
}

// alive: pid names a process that is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
