package spawn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is one tmux process, started or being started.
type Proc struct {
	pid       int
	stdin     *os.File // nil unless started with one
	stdout    *os.File
	stderr    *os.File
	out, errb bytes.Buffer
	read      chan struct{} // closed when both pipes are drained
	started   chan struct{} // closed when the fork has returned
	err       error         // the fork's
}

// Start forks exe with argv (argv[0] included) and returns once it runs.
// With stdin, the process reads a pipe that Finish writes; without, it
// reads /dev/null. A failed fork is the Proc's error, which Wait and
// Finish return.
func Start(exe string, argv []string, stdin bool) *Proc {
	p := newProc()
	p.err = p.start(exe, argv, stdin)
	close(p.started)
	return p
}

// Go is Start on a goroutine of its own: the fork returns only once the
// child has exec'd (half a millisecond), which an init function need not
// wait for. Every method waits for the fork first.
func Go(exe string, argv []string, stdin bool) *Proc {
	p := newProc()
	go func() {
		p.err = p.start(exe, argv, stdin)
		close(p.started)
	}()
	return p
}

func newProc() *Proc {
	return &Proc{read: make(chan struct{}), started: make(chan struct{})}
}

// Err waits for the fork and returns its error.
func (p *Proc) Err() error {
	<-p.started
	return p.err
}

// Pid waits for the fork and returns the process id (0 when it failed).
func (p *Proc) Pid() int {
	<-p.started
	return p.pid
}

// start forks. The pipes are os.Pipe's: the ends this process keeps stay
// non-blocking in Go's poller (closing one ends a read or write blocked on
// it, see Wait and Finish), and the child's ends are put in blocking mode
// by Fd, as a child expects its stdio.
func (p *Proc) start(exe string, argv []string, withStdin bool) error {
	var child []*os.File // closed here once the child has them
	defer func() {
		for _, f := range child {
			f.Close()
		}
	}()
	var stdin *os.File
	if withStdin {
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		child, stdin = append(child, r), w
	} else {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return err
		}
		child = append(child, null)
	}
	ours := []*os.File{stdin}
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ours)
			return err
		}
		child, ours = append(child, w), append(ours, r)
	}
	pid, err := syscall.ForkExec(exe, argv, &syscall.ProcAttr{Env: os.Environ(),
		Files: []uintptr{child[0].Fd(), child[1].Fd(), child[2].Fd()}})
	if err != nil {
		closeAll(ours)
		return &os.PathError{Op: "fork/exec", Path: exe, Err: err}
	}
	p.pid, p.stdin, p.stdout, p.stderr = pid, ours[0], ours[1], ours[2]
	go p.drain()
	return nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

func (p *Proc) drain() {
	done := make(chan struct{})
	go func() { _, _ = p.errb.ReadFrom(p.stderr); close(done) }()
	_, _ = p.out.ReadFrom(p.stdout)
	<-done
	close(p.read)
}

// ExitError is a process that ended other than with status 0.
type ExitError struct{ Status syscall.WaitStatus }

func (e *ExitError) Error() string {
	if e.Status.Signaled() {
		return "tmux: " + e.Status.Signal().String()
	}
	return "tmux: exit status " + strconv.Itoa(e.Status.ExitStatus())
}

// Wait waits for the process's end, killing it when ctx ends first, and
// returns what it printed. grace bounds the wait for its pipes once it has
// exited: a stopped server holds a client's output fds in its unread queue
// after the client is gone, so they may never reach end of file. A stdin
// nobody finished is closed first: the process reads end of file.
func (p *Proc) Wait(ctx context.Context, grace time.Duration) (stdout, stderr string, err error) {
	if err := p.Err(); err != nil {
		return "", "", err
	}
	if p.stdin != nil {
		p.stdin.Close()
	}
	return p.wait(ctx, grace)
}

func (p *Proc) wait(ctx context.Context, grace time.Duration) (stdout, stderr string, err error) {
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(p.pid, &ws, 0, nil); !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		exited <- ws
	}()
	var ws syscall.WaitStatus
	select {
	case ws = <-exited:
	case <-ctx.Done():
		select {
		case ws = <-exited: // it ended as the context did: its own answer
		default:
			// Not reaped when looked at. The waiter may reap it in the
			// instant before the kill, but Linux hands pids out in
			// sequence, so that pid is not another process's yet.
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			ws = <-exited
			err = ctx.Err()
		}
	}
	if p.stdin != nil {
		p.stdin.Close() // ends a write Finish still has blocked on it
	}
	t := time.NewTimer(grace)
	select {
	case <-p.read:
		t.Stop()
	case <-t.C:
		p.stdout.Close()
		p.stderr.Close()
		<-p.read
	}
	p.stdout.Close()
	p.stderr.Close()
	if err == nil && (!ws.Exited() || ws.ExitStatus() != 0) {
		err = &ExitError{Status: ws}
	}
	return p.out.String(), p.errb.String(), err
}

// Finish hands the process its stdin, closes it and waits as Wait does.
// The write runs beside the wait: a client whose server has stopped reads
// no more of a long stdin, and ctx must still end it. An empty stdin is a
// `source-file -` that tmux runs as nothing.
func (p *Proc) Finish(ctx context.Context, stdin string, grace time.Duration) (stdout, stderr string, err error) {
	if err := p.Err(); err != nil {
		return "", "", err
	}
	if p.stdin == nil {
		return p.wait(ctx, grace)
	}
	// A process that is gone (no server) fails the write; its exit status
	// says why.
	go func(w *os.File) {
		_, _ = io.WriteString(w, stdin)
		w.Close()
	}(p.stdin)
	return p.wait(ctx, grace)
}

// End ends a process nobody needs: it is killed and reaped at once.
func (p *Proc) End() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _ = p.Wait(ctx, 0)
}

// LookPath finds bin as exec.LookPath would, where the answer is certain:
// a name with a slash when it is an executable file, else the first
// executable regular file of that name in an absolute PATH entry. It
// returns "" otherwise (a relative entry is os/exec's to judge, a missing
// binary the caller's to report).
func LookPath(bin, pathEnv string) string {
	if strings.Contains(bin, "/") {
		if executable(bin) {
			return bin
		}
		return ""
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			return ""
		}
		if f := filepath.Join(dir, bin); executable(f) {
			return f
		}
	}
	return ""
}

func executable(f string) bool {
	st, err := os.Stat(f)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
