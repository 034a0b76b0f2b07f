package listcall

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is a tmux call already running, started before the program that
// needs it was initialized: tma-scan's list (Prestart) or tma-hook's write
// client (PrestartBatch).
type Proc struct {
	Bin        string    // the binary as named (TMA_TMUX_BIN or "tmux"), before the PATH lookup
	SocketArgs []string  // the server's flags the call was given
	Nonce      string    // the list's (empty for a batch)
	socket     [2]string // the server's name and path, as Socket resolved them
	pid        int
	stdin      *os.File // a batch's: the lines go here (nil for the list)
	stdout     *os.File
	stderr     *os.File
	out, errb  bytes.Buffer
	read       chan struct{} // closed when both pipes are drained
	started    chan struct{} // closed when the fork has returned
	err        error         // the fork's
}

// Pending is the call Prestart started for this process, until Take.
var Pending *Proc

// PendingBatch is the `source-file -` process PrestartBatch started for
// this process, until TakeBatch.
var PendingBatch *Proc

// Take hands over the pending call when it is the one a client with bin and
// socketArgs would make; any other pending call is ended. It returns nil
// when there is none to take.
func Take(bin string, socketArgs []string) *Proc { return take(&Pending, bin, socketArgs) }

// TakeBatch is Take for the pending batch.
func TakeBatch(bin string, socketArgs []string) *Proc { return take(&PendingBatch, bin, socketArgs) }

func take(pending **Proc, bin string, socketArgs []string) *Proc {
	p := *pending
	*pending = nil
	if p == nil {
		return nil
	}
	if <-p.started; p.err != nil {
		return nil
	}
	if p.Bin != bin || !slices.Equal(p.SocketArgs, socketArgs) {
		p.End()
		return nil
	}
	return p
}

// Drop ends the pending call, if any: the run will not list after all.
func Drop() { drop(&Pending) }

// DropBatch ends the pending batch, if any.
func DropBatch() { drop(&PendingBatch) }

func drop(pending **Proc) {
	if p := *pending; p != nil {
		*pending = nil
		p.End()
	}
}

// Prestart starts the list call a one-shot scan with these words will make,
// where it can tell for sure which call that is: the words name the server
// plainly (Words), and no config file can name another binary (a config
// that might is left to the scan, which reads it). It returns nil when it
// started nothing. It spawns with syscall.ForkExec rather than os/exec:
// os/exec's first start probes pidfd support by forking a child of its own,
// a third of a millisecond on the path this exists to shorten. The fork
// runs on a goroutine of its own: it returns only once tmux has exec'd
// (half a millisecond), which the caller's init need not wait for.
func Prestart(args []string, getenv func(string) string) *Proc {
	p, exe := sure(args, false, getenv)
	if p == nil {
		return nil
	}
	p.Nonce = Nonce()
	p.launch(exe, Args(p.Nonce), false)
	return p
}

// PrestartBatch starts the `source-file -` process a hook's write will
// use, where it can tell for sure which one that is (as Prestart, with a
// hook's positional words), only inside a pane ($TMUX_PANE) and only where
// no daemon socket exists for the server (daemonSocket names it from the
// socket's name and path): a hook hands its event to a running daemon and
// spawns nothing. The lines go to its stdin later (Proc.Finish).
func PrestartBatch(args []string, getenv func(string) string, daemonSocket func(name, path string) string) *Proc {
	if getenv("TMUX_PANE") == "" {
		return nil
	}
	p, exe := sure(args, true, getenv)
	if p == nil {
		return nil
	}
	if s := daemonSocket(p.socket[0], p.socket[1]); s != "" {
		if _, err := os.Stat(s); err == nil {
			return nil
		}
	}
	p.launch(exe, []string{"source-file", "-"}, true)
	return p
}

// sure is the call's binary and server when the words and the config
// leave no doubt about them, else nil.
func sure(args []string, positional bool, getenv func(string) string) (*Proc, string) {
	name, path, cfgPath, ok := Words(args, positional)
	if !ok || configMayNameBin(cfgPath, getenv) {
		return nil, ""
	}
	bin := getenv("TMA_TMUX_BIN")
	if bin == "" {
		bin = "tmux"
	}
	exe := lookPath(bin, getenv("PATH"))
	if exe == "" {
		return nil, "" // the tool's own call says what is missing
	}
	n, s := Socket(name, path, getenv)
	return &Proc{Bin: bin, SocketArgs: SocketArgs(n, s), socket: [2]string{n, s},
		read: make(chan struct{}), started: make(chan struct{})}, exe
}

func (p *Proc) launch(exe string, args []string, stdin bool) {
	argv := append([]string{p.Bin}, Argv(p.SocketArgs, args)...)
	go func() {
		p.err = p.start(exe, argv, stdin)
		close(p.started)
	}()
}

// Nonce is a list call's nonce: only beyond a guess by whatever prints into
// a pane (math/rand/v2 is seeded from the OS per process).
func Nonce() string { return strconv.FormatUint(uint64(rand.Uint32())|1<<32, 16)[1:] }

// start forks the call. The pipes are os.Pipe's: the ends this process
// keeps stay non-blocking in Go's poller (closing one ends a read blocked
// on it, see Wait), and the child's ends are put in blocking mode by Fd,
// as a child expects its stdio.
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
		return err
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

// ExitError is a call that ended other than with status 0.
type ExitError struct{ Status syscall.WaitStatus }

func (e *ExitError) Error() string {
	if e.Status.Signaled() {
		return "tmux: " + e.Status.Signal().String()
	}
	return "tmux: exit status " + strconv.Itoa(e.Status.ExitStatus())
}

// Wait waits for the call's end, killing it when ctx ends first, and
// returns what it printed. grace bounds the wait for its pipes once it has
// exited: a stopped server holds a client's output fds in its unread queue
// after the client is gone, so they may never reach end of file.
func (p *Proc) Wait(ctx context.Context, grace time.Duration) (stdout, stderr string, err error) {
	if <-p.started; p.err != nil {
		return "", "", p.err
	}
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
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
		ws = <-exited
		err = ctx.Err()
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

// Finish hands a batch its lines, closes its stdin and waits for it as
// Wait does. An empty stdin is a batch tmux runs as nothing.
func (p *Proc) Finish(ctx context.Context, lines string, grace time.Duration) (stdout, stderr string, err error) {
	if <-p.started; p.err != nil {
		return "", "", p.err
	}
	if p.stdin != nil {
		// A client that is gone (no server) fails the write; its exit
		// status says why.
		_, _ = io.WriteString(p.stdin, lines)
		p.stdin.Close()
	}
	return p.Wait(ctx, grace)
}

// End ends a call nobody takes: a list only reads and an unused batch has
// nothing to write, so it is killed and reaped without a grace.
func (p *Proc) End() {
	if p.stdin != nil {
		p.stdin.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _ = p.Wait(ctx, 0)
}

// lookPath finds bin as exec.LookPath would, where the answer is certain:
// a name with a slash when it is an executable file, else the first
// executable regular file of that name in an absolute PATH entry. It
// returns "" otherwise (a relative entry is os/exec's to judge, a missing
// binary the scan's to report).
func lookPath(bin, pathEnv string) string {
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

// configMayNameBin reports whether the config file the scan will read could
// set [tmux] bin: the file lib/config.Resolve picks exists and holds the
// word "bin" anywhere. Only the config's loader may read TOML; a word test
// is enough to know when not to guess.
func configMayNameBin(flagPath string, getenv func(string) string) bool {
	var path string
	switch {
	case flagPath != "":
		path = flagPath
	case getenv("TMA_CONFIG") != "":
		path = getenv("TMA_CONFIG")
	default:
		for _, p := range candidates(getenv) {
			if _, err := os.Stat(p); err == nil || !errors.Is(err, os.ErrNotExist) {
				path = p
				break
			}
		}
	}
	if path == "" {
		return false
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	return err != nil || bytes.Contains(b, []byte("bin"))
}

// candidates are the implicit config files, as lib/config.Candidates names them.
func candidates(getenv func(string) string) []string {
	var out []string
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		out = append(out, filepath.Join(x, "tma", "config.toml"))
	}
	if h := getenv("HOME"); h != "" {
		out = append(out, filepath.Join(h, ".config", "tma", "config.toml"))
	}
	return out
}
