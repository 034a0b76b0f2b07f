package listcall

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is a list call already running, started by Prestart.
type Proc struct {
	Bin        string   // the binary as named (TMA_TMUX_BIN or "tmux"), before the PATH lookup
	SocketArgs []string // the server's flags the call was given
	Nonce      string
	pid        int
	stdout     *os.File
	stderr     *os.File
	out, errb  bytes.Buffer
	read       chan struct{} // closed when both pipes are drained
	started    chan struct{} // closed when the fork has returned
	err        error         // the fork's
}

// Pending is the call Prestart started for this process, until Take.
var Pending *Proc

// Take hands over the pending call when it is the one a client with bin and
// socketArgs would make; any other pending call is ended. It returns nil
// when there is none to take.
func Take(bin string, socketArgs []string) *Proc {
	p := Pending
	Pending = nil
	if p == nil {
		return nil
	}
	if <-p.started; p.err != nil {
		return nil
	}
	if p.Bin != bin || !equal(p.SocketArgs, socketArgs) {
		p.End()
		return nil
	}
	return p
}

// Drop ends the pending call, if any: the run will not list after all.
func Drop() {
	if p := Pending; p != nil {
		Pending = nil
		p.End()
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
	name, path, cfgPath, ok := Words(args, false)
	if !ok || configMayNameBin(cfgPath, getenv) {
		return nil
	}
	bin := getenv("TMA_TMUX_BIN")
	if bin == "" {
		bin = "tmux"
	}
	exe := lookPath(bin, getenv("PATH"))
	if exe == "" {
		return nil // the scan's own call says what is missing
	}
	p := &Proc{Bin: bin, SocketArgs: SocketArgs(Socket(name, path, getenv)), Nonce: Nonce(),
		read: make(chan struct{}), started: make(chan struct{})}
	argv := append([]string{bin}, Argv(p.SocketArgs, Args(p.Nonce))...)
	go func() {
		p.err = p.start(exe, argv)
		close(p.started)
	}()
	return p
}

// Nonce is a list call's nonce: only beyond a guess by whatever prints into
// a pane (math/rand/v2 is seeded from the OS per process).
func Nonce() string { return strconv.FormatUint(uint64(rand.Uint32())|1<<32, 16)[1:] }

func (p *Proc) start(exe string, argv []string) error {
	null, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(null)
	var o, e [2]int
	if err := syscall.Pipe2(o[:], syscall.O_CLOEXEC); err != nil {
		return err
	}
	if err := syscall.Pipe2(e[:], syscall.O_CLOEXEC); err != nil {
		syscall.Close(o[0])
		syscall.Close(o[1])
		return err
	}
	pid, err := syscall.ForkExec(exe, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{uintptr(null), uintptr(o[1]), uintptr(e[1])}})
	syscall.Close(o[1])
	syscall.Close(e[1])
	if err != nil {
		syscall.Close(o[0])
		syscall.Close(e[0])
		return err
	}
	p.pid = pid
	// Non-blocking read ends go through Go's poller, so closing one ends
	// a read blocked on it (see Wait).
	syscall.SetNonblock(o[0], true)
	syscall.SetNonblock(e[0], true)
	p.stdout, p.stderr = os.NewFile(uintptr(o[0]), "tmux stdout"), os.NewFile(uintptr(e[0]), "tmux stderr")
	go p.drain()
	return nil
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

// End ends a call nobody takes: a list only reads, so it is killed and
// reaped without a grace.
func (p *Proc) End() {
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
