package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var serial atomic.Int64

// Server is an isolated tmux server: tmux -L <unique> -f /dev/null.
type Server struct {
	T      testing.TB
	Bin    string // tmux binary (TMA_TMUX_BIN or tmux)
	Name   string
	Socket string
	Dir    string // a scratch dir for screens and fake agents
}

// TmuxBin is the tmux the tests run against.
func TmuxBin() string {
	if b := os.Getenv("TMA_TMUX_BIN"); b != "" {
		return b
	}
	return "tmux"
}

// NewServer starts a server with one session "s" (80x24) running a shell,
// and kills it when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	bin := TmuxBin()
	if filepath.Base(bin) == bin {
		Need(t, bin)
	} else if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("tmux %q not found (TMA_TMUX_BIN)", bin)
	}
	s := &Server{T: t, Bin: bin, Name: fmt.Sprintf("tmatest-%d-%d", os.Getpid(), serial.Add(1)), Dir: t.TempDir()}
	s.MustRun("new-session", "-d", "-s", "s", "-x", "80", "-y", "24", "sh")
	s.Socket = strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{socket_path}"))
	t.Cleanup(func() {
		if out, err := exec.Command(s.Bin, "-L", s.Name, "kill-server").CombinedOutput(); err != nil && os.Getenv("TMA_TESTKIT_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "testkit: kill-server %s: %v %s\n", s.Name, err, out)
		}
		_ = os.Remove(s.Socket)
	})
	return s
}

// Run runs one tmux command on this server.
func (s *Server) Run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, append([]string{"-L", s.Name, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// MustRun runs a tmux command and fails the test on error.
func (s *Server) MustRun(args ...string) string {
	s.T.Helper()
	out, err := s.Run(args...)
	if err != nil {
		s.T.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return out
}

// Option reads a pane option ("" when unset).
func (s *Server) Option(pane, name string) string {
	out, _ := s.Run("show-options", "-pqv", "-t", pane, name)
	return strings.TrimRight(out, "\n")
}

// builtDir holds this test binary's fake agents.
func builtDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("tma-fakeagent-%d", os.Getpid()))
}

// RemoveBuilt deletes the fake agents this test binary built; call it from
// TestMain after m.Run.
func RemoveBuilt() { _ = os.RemoveAll(builtDir()) }

// FakeAgent builds the fake agent under the given process name (once per
// test binary and name) and returns its path.
func FakeAgent(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(builtDir(), name, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "fakeagent")
	cmd := exec.Command("go", "build", "-o", path, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build fake agent: %v\n%s", err, out)
	}
	return path
}

// Agent is a fake agent running in a pane.
type Agent struct {
	Pane   string
	Screen string // the file it paints; Paint rewrites it
	s      *Server
}

// StartAgent opens a new window running a fake agent named name under a
// shell (so the tree is shell → agent), painting screen.
func (s *Server) StartAgent(name, screen string) *Agent {
	s.T.Helper()
	bin := FakeAgent(s.T, name)
	f := filepath.Join(s.Dir, fmt.Sprintf("screen-%d", serial.Add(1)))
	if err := os.WriteFile(f, []byte(screen), 0o644); err != nil {
		s.T.Fatal(err)
	}
	// Job control on, as in an interactive shell: the agent leads its own
	// foreground process group, so pane_current_command names it.
	out := s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", "set -m; "+bin+" "+f+"; exec sh")
	a := &Agent{Pane: strings.TrimSpace(out), Screen: f, s: s}
	s.WaitFor(func() bool {
		o, _ := s.Run("display", "-p", "-t", a.Pane, "#{pane_current_command}")
		return strings.TrimSpace(o) == name
	}, "agent "+name+" in the foreground of "+a.Pane)
	// In the foreground is not yet painted: a capture before the paint
	// reads a blank screen (seen under load).
	a.waitShown(screen)
	return a
}

// StartRecordingAgent is StartAgent on a raw terminal (stty raw -echo),
// with the agent appending every input byte it receives to the returned
// file: what a pane was sent, key by key.
func (s *Server) StartRecordingAgent(name, screen string) (*Agent, string) {
	s.T.Helper()
	bin := FakeAgent(s.T, name)
	n := serial.Add(1)
	f := filepath.Join(s.Dir, fmt.Sprintf("screen-%d", n))
	log := filepath.Join(s.Dir, fmt.Sprintf("input-%d", n))
	if err := os.WriteFile(f, []byte(screen), 0o644); err != nil {
		s.T.Fatal(err)
	}
	out := s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", "set -m; stty raw -echo; "+bin+" "+f+" "+log+"; exec sh")
	a := &Agent{Pane: strings.TrimSpace(out), Screen: f, s: s}
	s.WaitFor(func() bool {
		o, _ := s.Run("display", "-p", "-t", a.Pane, "#{pane_current_command}")
		return strings.TrimSpace(o) == name
	}, "agent "+name+" in the foreground of "+a.Pane)
	// In the foreground is not yet painted: a capture before the paint
	// reads a blank screen (seen under load).
	a.waitShown(screen)
	return a, log
}

// Paint replaces what the agent shows and waits until tmux has it.
func (a *Agent) Paint(screen string) {
	a.s.T.Helper()
	if err := os.WriteFile(a.Screen, []byte(screen), 0o644); err != nil {
		a.s.T.Fatal(err)
	}
	a.waitShown(screen)
}

// waitShown waits until every line of screen is on the pane: screens
// often share their last lines (a footer), so one line proves nothing.
func (a *Agent) waitShown(screen string) {
	a.s.T.Helper()
	body := screen
	if i := strings.Index(screen, "\n---\n"); i >= 0 && strings.HasPrefix(screen, "# ") {
		body = screen[i+5:]
	}
	var want []string
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(stripEsc(l)); t != "" {
			want = append(want, t)
		}
	}
	a.s.WaitFor(func() bool {
		o, _ := a.s.Run("capture-pane", "-p", "-t", a.Pane)
		for _, w := range want {
			if !strings.Contains(o, w) {
				return false
			}
		}
		return true
	}, "screen painted in "+a.Pane)
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := len(ls) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(stripEsc(ls[i])); t != "" {
			return t
		}
	}
	return ""
}

func stripEsc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i++; i < len(s) && !(s[i] >= '@' && s[i] <= '~' && s[i] != '['); i++ {
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// WaitFor polls cond for up to 20 s.
func (s *Server) WaitFor(cond func() bool, what string) {
	s.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.T.Fatalf("timed out waiting for %s", what)
}

// Need returns the path of a tool the tests run, and fails the test when it
// is missing: `make deps` provides every one of them (fzf in bin/, the
// Debian tools by apt-get), so a missing tool is a broken setup, never a
// reason to skip quietly. fzf is looked up on $PATH, then in the repo's bin/.
func Need(t testing.TB, tool string) string {
	t.Helper()
	if p, err := exec.LookPath(tool); err == nil {
		return p
	}
	if tool == "fzf" {
		_, file, _, _ := runtime.Caller(0)
		p := filepath.Join(filepath.Dir(file), "..", "..", "bin", "fzf")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("%s not found: run `make deps` (make test does) to install what the tests need", tool)
	return ""
}
