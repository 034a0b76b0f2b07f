package lifeline

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The tests run this binary again as the stage under test: helperEnv names
// what it does.
const helperEnv = "LIFELINE_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "bind":
		// A stage that binds and then only waits; it says when it is bound.
		Bind()
		fmt.Println("bound")
		time.Sleep(time.Minute)
		os.Exit(0)
	case "context":
		// A stage that undoes its work on a signal and exits with the
		// shell's code for it.
		ctx, stop := Context(context.Background())
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		s, _ := Cause(ctx)
		fmt.Println("ended", s.Code())
		os.Exit(0)
	case "reader-settle":
		// The settle step runs once the reader is gone, before the exit.
		DieWithReaderAfter(os.Stdout, func() {
			time.Sleep(200 * time.Millisecond)
			_ = os.WriteFile(os.Getenv("LIFELINE_SETTLED"), []byte("settled"), 0o600)
		})
		fmt.Println("ready")
		time.Sleep(time.Minute)
		os.Exit(0)
	case "reader":
		DieWithReader(os.Stdout)
		fmt.Println("ready")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
}

func helper(t *testing.T, mode string, extraEnv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), extraEnv...)
	return cmd
}

// status reports how a child ended.
func status(err error) string {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return fmt.Sprint(err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "exit " + strconv.Itoa(ws.ExitStatus())
}

func waitWithin(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		t.Fatalf("still running after %s", d)
		return nil
	}
}

// A stage told its pipeline's shell is some other process was orphaned
// before it could bind: it ends at once, as if that shell had died.
func TestBindOrphanedAtStart(t *testing.T) {
	cmd := helper(t, "bind", PipelineEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if got := status(waitWithin(t, cmd, 5*time.Second)); got != "signal terminated" {
		t.Fatalf("orphaned stage: %s, want signal terminated", got)
	}
}

// Told the truth, it stays.
func TestBindParentAlive(t *testing.T) {
	cmd := helper(t, "bind", PipelineEnv+"="+strconv.Itoa(os.Getpid()))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "bound\n" {
		t.Fatalf("helper said %q", line)
	}
	time.Sleep(2 * PollEvery)
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("a stage whose parent lives ended: %v", err)
	}
}

// The parent dies after the stage bound: the stage gets SIGTERM. The test
// process is made the subreaper so the orphan comes back to it and its end
// can be read.
func TestBindParentDies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the subreaper that reads the orphan's end is Linux's")
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skip("no subreaper:", err)
	}
	dir := t.TempDir()
	fifo := dir + "/bound"
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// sh starts the stage and prints its pid; the stage writes "bound" into
	// the fifo sh reads, and once sh has read it, sh exits: the bound stage
	// is an orphan.
	parent := exec.Command("sh", "-c", `TMA_PIPELINE_PID=$$ "$0" -test.run='^$' > "$1" & echo $!; read l < "$1"`, os.Args[0], fifo)
	parent.Env = append(os.Environ(), helperEnv+"=bind")
	parent.Stderr = os.Stderr // not a pipe Output would wait on: the stage holds it
	out, err := parent.Output()
	if err != nil {
		t.Fatalf("parent: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("parent printed %q", out)
	}
	done := make(chan unix.WaitStatus, 1)
	go func() {
		var ws unix.WaitStatus
		for {
			if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
				break
			}
		}
		done <- ws
	}()
	select {
	case ws := <-done:
		if !ws.Signaled() || ws.Signal() != unix.SIGTERM {
			t.Fatalf("the orphaned stage ended with %v, want SIGTERM", ws)
		}
	case <-time.After(5 * time.Second):
		_ = unix.Kill(pid, unix.SIGKILL)
		t.Fatal("the stage outlived its parent")
	}
}

// Each ending signal cancels the context with itself as the cause; a
// signal ignored at start (nohup's SIGHUP) stays ignored.
func TestContext(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		ignore string
		want   string
	}{
		{syscall.SIGTERM, "", "ended 143"},
		{syscall.SIGINT, "", "ended 130"},
		{syscall.SIGHUP, "", "ended 129"},
		{syscall.SIGHUP, "HUP", ""},
	} {
		t.Run(c.sig.String()+c.ignore, func(t *testing.T) {
			// sh's trap '' sets SIG_IGN, which exec keeps.
			cmd := exec.Command("sh", "-c", `trap '' `+c.ignore+` ; exec "$0" -test.run='^$'`, os.Args[0])
			if c.ignore == "" {
				cmd = helper(t, "context")
			}
			cmd.Env = append(os.Environ(), helperEnv+"=context")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			rd := bufio.NewReader(out)
			if l, _ := rd.ReadString('\n'); l != "ready\n" {
				t.Fatalf("helper said %q", l)
			}
			_ = cmd.Process.Signal(c.sig)
			if c.want == "" {
				time.Sleep(300 * time.Millisecond)
				if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
					t.Fatalf("an ignored %v ended the stage", c.sig)
				}
				_ = cmd.Process.Signal(syscall.SIGTERM)
				c.want = "ended 143"
			}
			l, _ := rd.ReadString('\n')
			if err := waitWithin(t, cmd, 5*time.Second); err != nil || strings.TrimSpace(l) != c.want {
				t.Fatalf("got %q (%v), want %q", l, err, c.want)
			}
		})
	}
}

// startReading starts the helper in mode with its stdout on a pipe and
// returns once it says it is ready, with the pipe's read end.
func startReading(t *testing.T, mode string, extraEnv ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	cmd := helper(t, mode, extraEnv...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if l, _ := bufio.NewReader(r).ReadString('\n'); l != "ready\n" {
		t.Fatalf("helper said %q", l)
	}
	return cmd, r
}

// The reader of the stage's stdout goes away: the stage ends now (SIGPIPE),
// not at its next write.
func TestDieWithReader(t *testing.T) {
	cmd, r := startReading(t, "reader")
	r.Close()
	if got := status(waitWithin(t, cmd, 5*time.Second)); got != "signal broken pipe" {
		t.Fatalf("stage with its reader gone: %s, want signal broken pipe", got)
	}
}

// DieWithReaderAfter: the settle step has run, to its end, before the
// stage dies of the broken pipe.
func TestDieWithReaderAfterSettles(t *testing.T) {
	marker := t.TempDir() + "/settled"
	cmd, r := startReading(t, "reader-settle", "LIFELINE_SETTLED="+marker)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("settled while the reader was still there")
	}
	r.Close()
	if got := status(waitWithin(t, cmd, 5*time.Second)); got != "signal broken pipe" {
		t.Fatalf("stage with its reader gone: %s, want signal broken pipe", got)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "settled" {
		t.Errorf("the stage died before its settle step ended: %q %v", b, err)
	}
}
