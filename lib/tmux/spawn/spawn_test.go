package spawn

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sh(script string) (string, []string) { return "/bin/sh", []string{"sh", "-c", script} }

func TestStartWaitsAndCaptures(t *testing.T) {
	exe, argv := sh(`printf 'out %s\n' "$0"; echo err >&2`)
	out, errs, err := Start(exe, argv, false).Wait(context.Background(), time.Second)
	if err != nil || out != "out sh\n" || errs != "err\n" {
		t.Fatalf("Wait: %q %q %v", out, errs, err)
	}
	// Without a stdin the process reads /dev/null, not this one's.
	exe, argv = sh("cat; echo end")
	if out, _, err := Start(exe, argv, false).Wait(context.Background(), time.Second); err != nil || out != "end\n" {
		t.Errorf("no stdin: %q %v", out, err)
	}
}

func TestExitStatusAndMissingBinary(t *testing.T) {
	exe, argv := sh("exit 3")
	_, _, err := Start(exe, argv, false).Wait(context.Background(), time.Second)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status.ExitStatus() != 3 || err.Error() != "tmux: exit status 3" {
		t.Errorf("exit 3: %v", err)
	}
	exe, argv = sh("kill -9 $$")
	if _, _, err := Start(exe, argv, false).Wait(context.Background(), time.Second); !errors.As(err, &ee) || !ee.Status.Signaled() {
		t.Errorf("a killed process: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "tmux")
	p := Start(missing, []string{"tmux"}, true)
	if err := p.Err(); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing binary: %v", err)
	}
	if _, _, err := p.Finish(context.Background(), "x\n", time.Second); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Finish of a failed fork: %v", err)
	}
	if p.Pid() != 0 {
		t.Errorf("a failed fork has pid %d", p.Pid())
	}
}

func TestFinishHandsOverStdin(t *testing.T) {
	exe, argv := sh("wc -c; cat")
	lines := strings.Repeat("set -p @x 1\n", 10000) // beyond a pipe's buffer
	out, _, err := Start(exe, argv, true).Finish(context.Background(), lines, time.Second)
	if err != nil || !strings.HasPrefix(out, "120000\n") {
		t.Fatalf("Finish: %.40q %v", out, err)
	}
	// Wait on a process with a stdin nobody finished: it reads end of file.
	exe, argv = sh("cat; echo eof")
	if out, _, err := Start(exe, argv, true).Wait(context.Background(), time.Second); err != nil || out != "eof\n" {
		t.Errorf("an unfinished stdin: %q %v", out, err)
	}
}

// A process that never answers is killed when the context ends, even
// while its stdin is still being written: a client of a stopped server
// reads no more of it, and the write must not hold the call up.
func TestContextEndsAHungProcess(t *testing.T) {
	for _, c := range []struct {
		name  string
		stdin string
	}{{"waiting", ""}, {"not reading a long stdin", strings.Repeat("x", 1<<20)}} {
		t.Run(c.name, func(t *testing.T) {
			exe, argv := sh("exec sleep 30")
			p := Start(exe, argv, true)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			t0 := time.Now()
			if _, _, err := p.Finish(ctx, c.stdin, 100*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a hung process: %v", err)
			}
			if d := time.Since(t0); d > 2*time.Second {
				t.Errorf("it took %s to end", d)
			}
			if err := syscall.Kill(p.Pid(), 0); err == nil {
				t.Errorf("process %d is still there", p.Pid())
			}
		})
	}
}

// Once the process has exited, grace bounds the wait for its pipes: here
// a child it left behind holds stdout open, as a stopped tmux server holds
// a gone client's.
func TestGraceBoundsThePipes(t *testing.T) {
	exe, argv := sh("sleep 30 & echo left")
	t0 := time.Now()
	out, _, err := Start(exe, argv, false).Wait(context.Background(), 200*time.Millisecond)
	if err != nil || out != "left\n" {
		t.Errorf("Wait: %q %v", out, err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("the wait took %s", d)
	}
}

// Go forks on a goroutine; every method waits for the fork. End kills and
// reaps a process nobody needs.
func TestGoAndEnd(t *testing.T) {
	exe, argv := sh("exec sleep 30")
	p := Go(exe, argv, true)
	if p.Err() != nil || p.Pid() <= 0 {
		t.Fatalf("Go: %v pid %d", p.Err(), p.Pid())
	}
	t0 := time.Now()
	p.End()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("End took %s", d)
	}
	if err := syscall.Kill(p.Pid(), 0); err == nil {
		t.Errorf("process %d outlived End", p.Pid())
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tmux")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ bin, path, want string }{
		{"tmux", "/nonexistent:" + dir, bin},
		{bin, "", bin},
		{plain, dir, ""},                // not executable
		{"plain", dir, ""},              // not executable
		{"tmux", "relative:" + dir, ""}, // os/exec's to judge
		{"tmux", "", ""},
		{dir, "", ""}, // a directory
	} {
		if got := LookPath(c.bin, c.path); got != c.want {
			t.Errorf("LookPath(%q, %q) = %q, want %q", c.bin, c.path, got, c.want)
		}
	}
}
