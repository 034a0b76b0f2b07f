package serve

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
)

// Detached is a daemon to start in the background.
type Detached struct {
	Exe   string   // the tma-daemon binary
	Args  []string // its whole command line after the binary
	Env   []string
	Paths daemon.Paths
}

// StartWait is how long a start waits for a daemon to answer on its socket.
// The socket is bound before the pipeline starts, so this covers a process
// start and a config load, not a cycle.
const StartWait = 5 * time.Second

// Start launches the daemon detached (its own session, stdio on /dev/null,
// cwd /) and waits until a daemon answers hello on the server's socket:
// the one it started, or the one that won a race for the lock. It fails
// when the process ends, or StartWait passes, with none answering.
func Start(s Detached) (*daemon.Hello, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	cmd := exec.Command(s.Exe, s.Args...)
	cmd.Env = s.Env
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", s.Exe, err)
	}
	exited := make(chan int, 1)
	go func() {
		_ = cmd.Wait()
		exited <- cmd.ProcessState.ExitCode()
	}()
	deadline := time.Now().Add(StartWait)
	code := -1
	for {
		if h, err := daemon.Ask(s.Paths, 250*time.Millisecond); err == nil && h != nil {
			return h, nil
		}
		select {
		case code = <-exited:
			if code != 0 {
				return nil, fmt.Errorf("the daemon exited (status %d) before answering on %s%s", code, s.Paths.Socket, lastLog(s.Paths.Log))
			}
			exited = nil // it lost the race for the lock: wait for the winner
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no daemon answered on %s within %s%s", s.Paths.Socket, StartWait, lastLog(s.Paths.Log))
		}
	}
}

// lastLog is the log's last line, as a hint.
func lastLog(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			last = t
		}
	}
	if last == "" {
		return ""
	}
	return "\nhint: the daemon's log (" + path + ") ends: " + last
}

// StopWait is how long a stop waits for the daemon to give its lock up.
const StopWait = 5 * time.Second

// ErrWedged is a daemon that took SIGTERM but did not exit in StopWait.
var ErrWedged = errors.New("the daemon did not exit")

// Stop sends the running daemon SIGTERM, never more (it reaps its control
// clients only on a clean exit), and waits for its lock to come free. nil,
// nil: none was running. ErrWedged leaves the SIGTERM in force: the daemon
// exits once it unwedges.
func Stop(p daemon.Paths) (*daemon.Running, error) {
	r, err := daemon.Find(p)
	if err != nil || r == nil {
		return nil, err
	}
	if err := r.Stop(); err != nil {
		return r, fmt.Errorf("signalling the daemon (pid %d): %w", r.PID, err)
	}
	deadline := time.Now().Add(StopWait)
	for time.Now().Before(deadline) {
		if now, err := daemon.Find(p); err == nil && now == nil {
			return r, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r, ErrWedged
}
