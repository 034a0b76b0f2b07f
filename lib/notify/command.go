package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/atomicfile"
)

// DefaultTimeout bounds a notify command: past it the command's process
// group is killed and the fire recorded as failed. TMA_NOTIFY_TIMEOUT_MS
// changes it (tests use a short one).
const DefaultTimeout = 30 * time.Second

// Timeout is the effective command bound.
func Timeout(getenv func(string) string) time.Duration {
	if v, err := strconv.Atoi(getenv("TMA_NOTIFY_TIMEOUT_MS")); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return DefaultTimeout
}

// Result is how one command run ended.
type Result struct {
	Exit   int    // the exit code; -1 when it never ran or was killed
	Reason string // "" on success, else why it failed
	Stderr string // at most StderrMax bytes
}

// StderrMax is how much of a command's stderr a run keeps.
const StderrMax = 16 << 10

type capped struct {
	b bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	if room := StderrMax - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Run runs one notify command (sh -c) with the payload on stdin and env
// added to the environment (every TMA_* payload variable inherited is
// dropped first), in its own process group, waits for it up to timeout and
// kills the group past it.
func Run(command string, payload []byte, env []string, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Env = append(withoutPayloadVars(os.Environ()), env...)
	cmd.Stdin = bytes.NewReader(payload)
	var errb capped
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	r := Result{Exit: -1, Stderr: errb.b.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.Reason = fmt.Sprintf("killed after %s", timeout)
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
		if r.Exit < 0 {
			r.Reason = "killed by " + ee.String()
		} else {
			r.Reason = "exit " + strconv.Itoa(r.Exit)
		}
	case err != nil:
		r.Reason = "cannot start: " + err.Error()
	default:
		r.Exit = 0
	}
	return r
}

// withoutPayloadVars drops every variable a state or a completion payload
// may set, so an inherited one never reads as this fire's.
func withoutPayloadVars(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(EnvNames, name) && !slices.Contains(CompletionEnvNames, name) {
			out = append(out, kv)
		}
	}
	return out
}

// Failure is the one failed fire doctor reports until the next clean one.
type Failure struct {
	Schema  int    `json:"schema"`
	AtMS    int64  `json:"at_ms"`
	Trigger string `json:"trigger"`
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// FailureFile is where the failure record lives: tma's runtime directory.
func FailureFile(getenv func(string) string) string {
	return filepath.Join(ledger.RuntimeDir(getenv), "notify-failure.json")
}

// Record keeps a run's outcome: a failure replaces the record, a success
// clears it. Errors are the caller's to ignore (a fire never fails on it).
func Record(getenv func(string) string, trigger, command string, r Result, nowMS int64) error {
	path := FailureFile(getenv)
	if r.Reason == "" {
		err := os.Remove(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := ledger.Ensure(filepath.Dir(path)); err != nil {
		return err
	}
	b, _ := json.Marshal(Failure{Schema: 1, AtMS: nowMS, Trigger: trigger, Command: command, Reason: r.Reason})
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// LastFailure reads the failure record; nil when there is none.
func LastFailure(getenv func(string) string) (*Failure, error) {
	b, err := os.ReadFile(FailureFile(getenv))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f Failure
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %v", FailureFile(getenv), err)
	}
	return &f, nil
}

// Supervisor is the program that runs a fire's command in the background
// and records its outcome: tma-notify beside the running binary, else on
// $PATH.
func Supervisor() string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "tma-notify")
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath("tma-notify"); err == nil {
		return p
	}
	return ""
}

// Start hands a fire's command to the supervisor, detached (its own
// session, no terminal, output discarded) so the firer exits at once while
// the command runs out its bound. With no supervisor the failure is
// recorded: a fire that cannot run its command must show in doctor.
func Start(getenv func(string) string, trigger, command string, payload []byte, env []string, nowMS int64) error {
	sup := Supervisor()
	if sup == "" {
		err := errors.New("tma-notify not found beside tma or on PATH")
		_ = Record(getenv, trigger, command, Result{Exit: -1, Reason: "cannot start: " + err.Error()}, nowMS)
		return err
	}
	// The payload goes through a pipe written here, before Start returns:
	// exec's own stdin copier runs in a goroutine that a firer exiting at
	// once (a hook) would cut off, leaving the command an empty payload.
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(sup, "run", "--trigger", trigger, "--", command)
	cmd.Env = append(withoutPayloadVars(os.Environ()), env...)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		_ = Record(getenv, trigger, command, Result{Exit: -1, Reason: "cannot start: " + err.Error()}, nowMS)
		return err
	}
	// A payload is a few hundred bytes: it fits the pipe, so this never
	// waits on the supervisor.
	_, werr := w.Write(payload)
	w.Close()
	// Reap it in the background if we live that long; a hook that exits
	// first leaves it to init, which is what detached means.
	go func() { _ = cmd.Wait() }()
	return werr
}

// AppendLog appends one line to the notify log: the directory is created,
// the file is 0600 and only ever appended to.
func AppendLog(path string, line []byte) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
