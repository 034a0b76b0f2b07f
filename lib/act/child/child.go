package child

import (
	"errors"
	"io"
	"os"
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
// the deadline the child's process group is killed. The group dies with this
// process too, however it ends (SIGKILL included): its keeper (startKeeper)
// kills it when this process is gone. err is non-nil only when the child
// could not be started.
func Run(command string, env []string, stdout, stderr io.Writer, timeout time.Duration) (Outcome, error) {
	k, err := startKeeper()
	if err != nil {
		return Outcome{}, err
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: k.pgid()}
	// A grandchild that keeps the output pipes open must not hold us past
	// the kill.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		k.release()
		return Outcome{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		k.release()
		return Outcome{Code: code(err)}, nil
	case <-timer.C:
		_ = syscall.Kill(-k.pgid(), syscall.SIGKILL)
		<-done
		k.release()
		return Outcome{TimedOut: true, Code: 124}, nil
	}
}

// keeper leads an exec child's process group and ties it to this process:
// it is `sh -c 'read _; kill -KILL 0'` reading a pipe whose only writer is
// this process. When this process ends, however it ends, the kernel closes
// that end, the read returns, and the keeper kills its whole group: the
// child, whatever it started, and itself. A child that ends first
// releases the keeper (killed alone, the group's other members left as
// they are: a command may leave a process running on purpose).
type keeper struct {
	cmd  *exec.Cmd
	hold *os.File // the pipe's write end; never written
}

func startKeeper() (*keeper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("sh", "-c", "read _; kill -KILL 0")
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	_ = r.Close()
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	return &keeper{cmd: cmd, hold: w}, nil
}

func (k *keeper) pgid() int { return k.cmd.Process.Pid }

// release ends the keeper alone and reaps it.
func (k *keeper) release() {
	_ = k.cmd.Process.Kill()
	_ = k.cmd.Wait()
	_ = k.hold.Close()
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
