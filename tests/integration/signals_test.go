package integration

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A follow pipeline ends with its dispatcher: SIGTERM, SIGINT or SIGHUP to
// the dispatcher's pid (the pid a caller holds) leaves, within a second, no
// stage and no control client, and the caller's stdout at EOF, so nothing can
// write to it any more. The processes are found by a tag in their
// environment, which every descendant inherits, orphaned or not.

// tagged returns the live processes (pid -> comm) whose environment carries
// tag; a zombie has ended.
func tagged(t *testing.T, tag string) map[int]string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !strings.Contains("\x00"+string(env), "\x00"+tag+"\x00") {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || end+2 >= len(s) || s[end+2] == 'Z' {
			continue
		}
		out[pid] = s[open+1 : end]
	}
	return out
}

// controlClients counts the control-mode clients attached to the server.
func (e *env) controlClients() int {
	out, _ := e.s.Run("list-clients", "-F", "#{client_control_mode}")
	return strings.Count(out, "1\n")
}

// startTagged starts argv (a shell command line's words) with the test
// server's environment and tag, in a process group of its own (the test's
// own group is never signalled), and returns its stdout.
func (e *env) startTagged(tag string, argv ...string) (*exec.Cmd, io.ReadCloser) {
	e.t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), tag, "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=",
		"TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		for pid := range tagged(e.t, tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd, out
}

// lines reads out in the background until EOF, which it reports by closing
// the channel.
func lines(out io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	return ch
}

// awaitPipeline waits until the three stages run (the stamp folds; there is
// no tma-fold) and the scan's control clients are attached: the session's
// pusher and the connection. Killed while one of them is still attaching,
// the scan would end the other with it, and tmux before 3.7 can crash on
// that (architecture.md): a risk the tests need not run.
func (e *env) awaitPipeline(t *testing.T, tag string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		have := map[string]bool{}
		for _, comm := range tagged(t, tag) {
			have[comm] = true
		}
		if have["tma-scan"] && have["tma-stamp"] && have["tma-wait"] && e.controlClients() >= 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipeline never came up: %v, %d control clients", tagged(t, tag), e.controlClients())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitGone requires every tagged process gone, no control client left,
// and (when out is given) the consumer's stdout at EOF, before deadline.
// Lines still arriving were written before the end and sat in the pipe.
func (e *env) awaitGone(t *testing.T, tag string, out <-chan string, deadline time.Time) {
	t.Helper()
	eof := out == nil
	for {
	drain:
		for !eof {
			select {
			case _, ok := <-out:
				eof = !ok
			default:
				break drain
			}
		}
		left, clients := tagged(t, tag), e.controlClients()
		if len(left) == 0 && clients == 0 && eof {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("1s after the end: processes %v, %d control clients, stdout at EOF: %v", left, clients, eof)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// parent reads a process's parent pid from /proc.
func parent(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func needProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process tree is read from /proc")
	}
}

func TestSignalEndsSubscribe(t *testing.T) {
	needProc(t)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			if signal.Ignored(sig) {
				t.Skipf("%v is ignored here, and a shell cannot catch what it started ignoring", sig)
			}
			// A server each, so a control client left by one is not another's.
			e := newEnv(t, "")
			e.s.StartAgent("claude", claudeWorking)
			tag := fmt.Sprintf("TMA_SIGNALS_TEST=%d-%d", os.Getpid(), i)
			cmd, so := e.startTagged(tag, "dash", filepath.Join(binDir, "tma"), "-L", e.s.Name, "subscribe", "--json", "--interval", "200ms")
			out := lines(so)
			select {
			case l := <-out:
				if !strings.HasPrefix(l, `{"schema":1,"agents":[`) {
					t.Fatalf("first document: %q", l)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("no snapshot within 15s")
			}
			e.awaitPipeline(t, tag)
			if err := syscall.Kill(cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			e.awaitGone(t, tag, out, time.Now().Add(time.Second))
			err := cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if !ok || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Errorf("the dispatcher ended with %v, want killed by %v", err, sig)
			}
		})
	}
}

// A script that waits on a pane and is killed mid-wait: the signal ends the
// pipeline, not the script (its process group is never signalled), which
// reads the shell's code for the signal.
func TestSignalEndsWaitNotItsCaller(t *testing.T) {
	needProc(t)
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)
	tag := fmt.Sprintf("TMA_SIGNALS_TEST=%d-wait", os.Getpid())
	script := `"$0" -L "$1" wait --pane "$2" --until blocked; echo "caller: $?"`
	caller, so := e.startTagged(tag, "dash", "-c", script, filepath.Join(binDir, "tma"), e.s.Name, a.Pane)
	out := lines(so)
	e.awaitPipeline(t, tag)
	dispatcher := 0
	for pid := range tagged(t, tag) {
		if parent(pid) == caller.Process.Pid {
			dispatcher = pid
		}
	}
	if dispatcher == 0 {
		t.Fatalf("no dispatcher under the caller %d: %v", caller.Process.Pid, tagged(t, tag))
	}
	if err := syscall.Kill(dispatcher, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	select {
	case l := <-out:
		if l != "caller: 143" {
			t.Fatalf("the caller printed %q, want caller: 143", l)
		}
	case <-time.After(time.Until(deadline)):
		t.Fatal("the caller did not go on within 1s of the signal")
	}
	e.awaitGone(t, tag, out, deadline)
	if err := caller.Wait(); err != nil {
		t.Errorf("the caller: %v", err)
	}
}

// A consumer that closes its end (head -1) ends the whole pipeline too.
func TestClosedStdoutEndsSubscribe(t *testing.T) {
	needProc(t)
	e := newEnv(t, "")
	e.s.StartAgent("claude", claudeWorking)
	tag := fmt.Sprintf("TMA_SIGNALS_TEST=%d-head", os.Getpid())
	script := `"$0" -L "$1" subscribe --json --interval 200ms | head -1`
	caller, so := e.startTagged(tag, "dash", "-c", script, filepath.Join(binDir, "tma"), e.s.Name)
	out := lines(so)
	select {
	case l := <-out:
		if !strings.HasPrefix(l, `{"schema":1,"agents":[`) {
			t.Fatalf("head printed %q", l)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no snapshot within 15s")
	}
	// head is gone and so is the caller when their stdout reaches EOF.
	timeout := time.After(5 * time.Second)
	for eof := false; !eof; {
		select {
		case l, ok := <-out:
			if ok {
				t.Fatalf("head printed a second line %q", l)
			}
			eof = true
		case <-timeout:
			t.Fatalf("subscribe | head -1 still running 5s after head's line: %v", tagged(t, tag))
		}
	}
	if err := caller.Wait(); err != nil {
		t.Fatalf("the caller: %v", err)
	}
	e.awaitGone(t, tag, nil, time.Now().Add(time.Second))
}
