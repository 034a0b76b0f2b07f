package child

import (
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// Outcome is how a child ended.
type Outcome struct {
	Code     int  // its exit status; 128+N when a signal N ended it
	TimedOut bool // killed at the deadline (Code is then meaningless)
}

// Run runs `sh -c command` with env as its whole environment, in the current
// directory, stdin from nowhere, stdout and stderr to the given writers. At
// the deadline the child's process group is killed. err is non-nil only when
// the child could not be started.
func Run(command string, env []string, stdout, stderr io.Writer, timeout time.Duration) (Outcome, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that keeps the output pipes open must not hold us past
	// the kill.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return Outcome{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return Outcome{Code: code(err)}, nil
	case <-timer.C:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return Outcome{TimedOut: true, Code: 124}, nil
	}
}

func code(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 1
}

// Spawned is a detached process just started: its pid, and its stdin,
// which the caller writes and closes.
type Spawned struct {
	PID   int
	Stdin io.WriteCloser
}

// Detach starts argv in a session of its own (no controlling terminal, no
// process group of the caller's, so the caller's exit or a terminal hangup
// does not reach it), env as its whole environment, stdin a pipe, stdout
// and stderr discarded. It is reaped in the background while the caller
// lives; when the caller exits first, init reaps it, which is what
// detached means.
func Detach(argv, env []string) (*Spawned, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return &Spawned{PID: cmd.Process.Pid, Stdin: w}, nil
}
