package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/testkit"
)

// wrapperSrc is a launcher in the way of npx or node: a threaded process
// that runs the agent as its child, forked from a thread that is not its
// main one (a child's parent in /proc is the thread that forked it).
const wrapperSrc = `package main

import (
	"os"
	"os/exec"
	"runtime"
)

func main() {
	// The main goroutine keeps the main thread, so the spawner runs on another.
	runtime.LockOSThread()
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(os.Args[1], os.Args[2:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		_ = cmd.Run()
		done <- 0
	}()
	os.Exit(<-done)
}
`

// wrapper builds the launcher under name (node, npm exec's comm is node).
func wrapper(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for f, body := range map[string]string{"main.go": wrapperSrc, "go.mod": "module wrapper\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "bin", name)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the %s wrapper: %v\n%s", name, err, out)
	}
	return bin
}

func scanPanes(t *testing.T, s *testkit.Server) map[string]*record.Pane {
	t.Helper()
	res, err := scan.Run(context.Background(), client(s), scan.Options{Manifests: load(t), Tuning: fold.DefaultTuning, Host: "h",
		Now: func() int64 { return time.Now().UnixMilli() }, NoCapture: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*record.Pane{}
	for _, p := range res.Panes {
		out[p.Pane] = p
	}
	return out
}

// pidOf finds the process named comm in the pane's tree, through the whole
// process table (the reference the cycle's tree walk must agree with).
func pidOf(t *testing.T, s *testkit.Server, pane, comm string) int {
	t.Helper()
	pp, _ := strconv.Atoi(strings.TrimSpace(s.MustRun("display", "-p", "-t", pane, "#{pane_pid}")))
	tb, err := proc.Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tb.Tree(pp) {
		if p.Comm == comm {
			return p.PID
		}
	}
	return 0
}

// Identity through the cycle's tree walk: an agent straight under a shell,
// under a threaded launcher, and a hook registration whose pid lives under
// that launcher or nowhere in the pane.
func TestIdentityThroughWrappers(t *testing.T) {
	s := testkit.NewServer(t)
	agent := fakeAgentBin(t, "claude")
	screen := filepath.Join(s.Dir, "idle")
	if err := os.WriteFile(screen, []byte(claudeIdle), 0o644); err != nil {
		t.Fatal(err)
	}
	node := wrapper(t, "node")
	direct := s.StartAgent("claude", claudeIdle)
	start := func(cmd string) string {
		return strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh", "-c", "set -m; "+cmd+"; exec sh"))
	}
	wrapped := start(node + " " + agent + " " + screen)
	// A process no manifest knows, under the launcher, registered by a hook.
	other := fakeAgentBin(t, "mystery")
	registered := start(node + " " + other + " " + screen)
	stranger := start(node + " " + other + " " + screen)
	var wrappedPID, regPID int
	s.WaitFor(func() bool {
		wrappedPID, regPID = pidOf(t, s, wrapped, "claude"), pidOf(t, s, registered, "mystery")
		return wrappedPID > 0 && regPID > 0 && pidOf(t, s, stranger, "mystery") > 0
	}, "the wrapped processes")
	set := func(pane string, kv ...string) {
		for i := 0; i+1 < len(kv); i += 2 {
			s.MustRun("set-option", "-p", "-t", pane, kv[i], kv[i+1])
		}
	}
	set(registered, "@agent_name", "claude", "@agent_session", "s-1", "@agent_pid", strconv.Itoa(regPID))
	// Registered to a pid that is not in this pane (this test process).
	set(stranger, "@agent_name", "claude", "@agent_session", "s-2", "@agent_pid", strconv.Itoa(os.Getpid()))

	ps := scanPanes(t, s)
	cases := []struct {
		pane, agent, identity string
		pid                   int
		alive, fg             bool
	}{
		{direct.Pane, "claude", "process", pidOf(t, s, direct.Pane, "claude"), true, true},
		{wrapped, "claude", "process", wrappedPID, true, true},
		{registered, "claude", "hook", regPID, true, false},
		{stranger, "", "", 0, false, false},
	}
	for _, c := range cases {
		p := ps[c.pane]
		if p == nil {
			t.Fatalf("pane %s missing from the scan", c.pane)
		}
		if p.Agent != c.agent || p.Identity != c.identity || p.AgentPID != c.pid || p.AgentAlive != c.alive || p.ForegroundIsAgent != c.fg {
			t.Errorf("%s: agent=%q identity=%q pid=%d alive=%v fg=%v, want %q %q %d %v %v (procs %d)", c.pane,
				p.Agent, p.Identity, p.AgentPID, p.AgentAlive, p.ForegroundIsAgent, c.agent, c.identity, c.pid, c.alive, c.fg, p.Procs)
		}
	}
	// The trees the cycle reads are the whole table's trees.
	full, err := proc.Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Procs != len(full.Tree(p.PanePID)) {
			t.Errorf("%s: the cycle saw %d processes, the whole walk %d", p.Pane, p.Procs, len(full.Tree(p.PanePID)))
		}
	}
}
