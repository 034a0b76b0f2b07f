package child

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperRunner is not a test: TestChildDiesWithItsRunner starts the
// test binary as a process that runs one command through Run, then kills
// that process.
func TestHelperRunner(t *testing.T) {
	if os.Getenv("TMA_CHILD_HELPER") == "" {
		t.Skip("a helper process for TestChildDiesWithItsRunner")
	}
	_, _ = Run(os.Getenv("TMA_CHILD_HELPER"), os.Environ(), os.Stdout, os.Stderr, 30*time.Second)
	os.Exit(0)
}

// TestChildDiesWithItsRunner: the process running an exec action's child
// is killed with SIGKILL (no handler can run): the child's shell and what it
// started are gone at once, and the command never reaches its next line.
func TestChildDiesWithItsRunner(t *testing.T) {
	dir := t.TempDir()
	pids, end := filepath.Join(dir, "pids"), filepath.Join(dir, "end")
	runner := exec.Command(os.Args[0], "-test.run=^TestHelperRunner$")
	runner.Env = append(os.Environ(), "TMA_CHILD_HELPER=sleep 2 & echo \"$$ $!\" > '"+pids+"'; wait; echo end > '"+end+"'")
	start := time.Now()
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	var procs []int
	for len(procs) < 2 {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the child never started")
		}
		time.Sleep(20 * time.Millisecond)
		b, _ := os.ReadFile(pids)
		procs = procs[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				procs = append(procs, n)
			}
		}
	}
	_ = runner.Process.Kill()
	_ = runner.Wait()
	killed := time.Now()
	for live(procs[0]) || live(procs[1]) {
		if time.Since(killed) > 3*time.Second {
			t.Fatalf("3 s after its runner was killed the child lives on (sh %v, sleep %v)", live(procs[0]), live(procs[1]))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Until(start.Add(2500 * time.Millisecond))) // past the sleep's end
	if _, err := os.Stat(end); err == nil {
		t.Fatal("the child outlived its runner and went on to its next line")
	}
}

// live: pid names a process that is not a zombie.
func live(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
