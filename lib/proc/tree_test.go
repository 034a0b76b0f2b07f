package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spawn starts a small tree under this process (sh → two sleeps) and
// returns the shell once both sleeps have exec'd; the tree is killed at
// the end of the test.
func spawn(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 61 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	waitSleeps(t, cmd.Process.Pid, 2)
	return cmd
}

// waitSleeps waits until n children of pid run sleep. Counting processes
// is not enough: a child forked but not yet exec'd still reads "sh", and a
// walk taken then disagrees with one taken a moment later (CI saw it).
func waitSleeps(t *testing.T, pid, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tb, err := Walk(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sleeps := 0
		for _, p := range tb.Tree(pid) {
			if p.PPID == pid && p.Comm == "sleep" {
				sleeps++
			}
		}
		if sleeps >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree under %d never ran %d sleeps", pid, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func describe(ps []*Proc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d<%d %s pg%d tpg%d", p.PID, p.PPID, p.Comm, p.PGID, p.TPGID))
	}
	return out
}

// The trees read from the children files are the trees the whole walk
// gives, in the same order, and nothing else is read.
func TestWalkTreesMatchesWalk(t *testing.T) {
	if !hasProc() {
		t.Skip("no /proc here: WalkTrees is the ps walk")
	}
	if !hasChildren("/proc") {
		t.Skip("this kernel has no /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN): WalkTrees is the whole walk")
	}
	sh := spawn(t)
	roots := []int{os.Getpid(), sh.Process.Pid}
	part, err := WalkTrees(context.Background(), roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roots {
		got, want := describe(part.Tree(r)), describe(full.Tree(r))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("tree of %d:\n%s\nwant (whole walk):\n%s", r, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if n := len(part.Tree(os.Getpid())); len(part.procs) != n {
		t.Fatalf("the table holds %d processes, the trees %d: it read outside them", len(part.procs), n)
	}
	if !part.Contains(os.Getpid(), sh.Process.Pid) {
		t.Fatal("Contains does not see the shell under this process")
	}
	if part.Get(os.Getppid()) != nil {
		t.Fatal("the parent of the root was read")
	}
	for _, p := range part.Tree(sh.Process.Pid)[1:] {
		if names := part.Names(p); names[0] != "sleep" {
			t.Fatalf("names of %d = %v", p.PID, names)
		}
	}
}

// A child's parent is the thread that forked it: a process whose other
// threads spawn (node under npx does) still has its children found.
func TestWalkTreesFindsChildrenOfOtherThreads(t *testing.T) {
	if !hasProc() || !hasChildren("/proc") {
		t.Skip("no children files here")
	}
	type result struct {
		cmd *exec.Cmd
		tid int
		err error
	}
	ch := make(chan result)
	go func() {
		// Locked to a thread that is not the main one, the fork happens there.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := syscall.Gettid()
		if tid == os.Getpid() {
			ch <- result{tid: tid}
			return
		}
		cmd := exec.Command("sleep", "60")
		err := cmd.Start()
		ch <- result{cmd, tid, err}
	}()
	r := <-ch
	if r.tid == os.Getpid() {
		t.Skip("the goroutine ran on the main thread")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); _ = r.cmd.Wait() })
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", os.Getpid(), r.tid))
	if err != nil || !strings.Contains(" "+string(b), " "+strconv.Itoa(r.cmd.Process.Pid)+" ") {
		t.Skipf("the kernel filed the child elsewhere (%q, %v)", b, err)
	}
	tb, err := WalkTrees(context.Background(), []int{os.Getpid()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := tb.Get(r.cmd.Process.Pid); p == nil || p.PPID != os.Getpid() {
		t.Fatalf("the child forked by thread %d is missing from the tree: %+v", r.tid, p)
	}
}

// fakeProc lays out a /proc: stat lines, and children files per thread
// unless children is false (a kernel without CONFIG_PROC_CHILDREN).
type fakeProc struct {
	dir      string
	children bool
}

func newFake(t *testing.T, children bool) *fakeProc {
	f := &fakeProc{dir: t.TempDir(), children: children}
	// treesAt probes the children file of the calling process.
	f.add(t, os.Getpid(), 1, "self", 1)
	return f
}

func (f *fakeProc) add(t *testing.T, pid, ppid int, comm string, threads int, kids ...map[int][]int) {
	t.Helper()
	d := filepath.Join(f.dir, strconv.Itoa(pid))
	if err := os.MkdirAll(filepath.Join(d, "task"), 0o755); err != nil {
		t.Fatal(err)
	}
	stat := fmt.Sprintf("%d (%s) S %d %d %d 34816 %d 4194560 0 0 0 0 0 0 0 0 20 0 %d 0 100\n", pid, comm, ppid, pid, pid, pid, threads)
	if err := os.WriteFile(filepath.Join(d, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "cmdline"), []byte(comm+"\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	byTid := map[int][]int{pid: nil}
	for tid := pid + 1; tid < pid+threads; tid++ {
		byTid[tid] = nil
	}
	for _, k := range kids {
		for tid, cs := range k {
			byTid[tid] = cs
		}
	}
	for tid, cs := range byTid {
		td := filepath.Join(d, "task", strconv.Itoa(tid))
		if err := os.MkdirAll(td, 0o755); err != nil {
			t.Fatal(err)
		}
		if !f.children {
			continue
		}
		var b strings.Builder
		for _, c := range cs {
			fmt.Fprintf(&b, "%d ", c)
		}
		if err := os.WriteFile(filepath.Join(td, "children"), []byte(b.String()), 0o444); err != nil {
			t.Fatal(err)
		}
	}
}

func comms(ps []*Proc) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Comm)
	}
	return strings.Join(out, " ")
}

func TestTreesAt(t *testing.T) {
	for _, children := range []bool{true, false} {
		t.Run(fmt.Sprintf("children=%v", children), func(t *testing.T) {
			f := newFake(t, children)
			// 10 bash → 11 npm exec (3 threads; its third thread forked 14
			// node) → 14 node → 15 claude; 12 zsh in another pane; 13 a
			// stranger under init.
			f.add(t, 10, 1, "bash", 1, map[int][]int{10: {11}})
			f.add(t, 11, 10, "npm exec", 3, map[int][]int{13: {14}})
			f.add(t, 14, 11, "node", 1, map[int][]int{14: {15}})
			f.add(t, 15, 14, "claude", 1)
			f.add(t, 12, 1, "zsh", 1)
			f.add(t, 13, 1, "stranger", 1)
			tb, err := treesAt(f.dir, []int{10, 12, 99}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := comms(tb.Tree(10)); got != "bash npm exec node claude" {
				t.Fatalf("tree of 10 = %q", got)
			}
			if got := comms(tb.Tree(12)); got != "zsh" {
				t.Fatalf("tree of 12 = %q", got)
			}
			if tb.Tree(99) != nil {
				t.Fatal("a root that does not exist has a tree")
			}
			if !tb.Contains(10, 15) || tb.Contains(12, 15) {
				t.Fatal("Contains is wrong")
			}
			if p := tb.Get(15); p == nil || tb.Names(p)[0] != "claude" {
				t.Fatalf("claude = %+v", p)
			}
			// Only a kernel without children files costs the whole table.
			if got := tb.Get(13) != nil; got != !children {
				t.Fatalf("stranger read = %v, want %v", got, !children)
			}
		})
	}
}

// A process with more children than one read buffer holds.
func TestTreesAtManyChildren(t *testing.T) {
	f := newFake(t, true)
	var kids []int
	for pid := 1000; pid < 1900; pid++ {
		kids = append(kids, pid)
	}
	f.add(t, 10, 1, "make", 1, map[int][]int{10: kids})
	for _, k := range kids {
		f.add(t, k, 10, "cc", 1)
	}
	tb, err := treesAt(f.dir, []int{10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tb.Tree(10)); n != len(kids)+1 {
		t.Fatalf("tree holds %d processes, want %d", n, len(kids)+1)
	}
	if tb.Tree(10)[1].PID != 1000 || tb.Tree(10)[len(kids)].PID != 1899 {
		t.Fatal("siblings are not in pid order")
	}
}

// A threaded fleet whose threads would cost more reads than the rest of
// the host is read whole instead, and the trees come out the same.
func TestTreesAtThreadsOrWhole(t *testing.T) {
	for _, strangers := range []int{5, 150} {
		t.Run(fmt.Sprintf("strangers=%d", strangers), func(t *testing.T) {
			f := newFake(t, true)
			// 10 sh → 11 agent (257 threads; thread 200 forked 12) → 12 tool.
			f.add(t, 10, 1, "sh", 1, map[int][]int{10: {11}})
			f.add(t, 11, 10, "agent", 257, map[int][]int{200: {12}})
			f.add(t, 12, 11, "tool", 1)
			for i := 0; i < strangers; i++ {
				f.add(t, 5000+i, 1, "stranger", 1)
			}
			tb, err := treesAt(f.dir, []int{10}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := comms(tb.Tree(10)); got != "sh agent tool" {
				t.Fatalf("tree of 10 = %q", got)
			}
			whole := 2*strangers < 257 // 257 reads for the threads against a stat line per other process
			if got := tb.Get(5000) != nil; got != whole {
				t.Fatalf("strangers read = %v, want %v", got, whole)
			}
		})
	}
}

func TestParseStatFields(t *testing.T) {
	cases := []struct {
		line                       string
		ppid, pgid, tpgid, threads int
		comm                       string
	}{
		{"7 (a b) (c)) S 1 7 7 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 12 0 100 0\n", 1, 7, -1, 12, "a b) (c)"},
		{"8 (sh) R 7 8 8 34816 8", 7, 8, 8, 1, "sh"}, // cut short: no thread count
	}
	for _, c := range cases {
		p, ok := parseStat(7, []byte(c.line))
		if !ok || p.PPID != c.ppid || p.PGID != c.pgid || p.TPGID != c.tpgid || p.threads != c.threads || p.Comm != c.comm {
			t.Errorf("%q: %+v ok=%v", c.line, p, ok)
		}
	}
	if _, ok := parseStat(9, []byte("9 (x) S 1 2")); ok {
		t.Error("a line without tpgid parsed")
	}
}

// WalkServer reads every child's tree of a pid ahead of knowing which
// roots matter (a scan's panes), and Extend adds roots it missed; both
// read the same trees a roots walk reads.
func TestWalkServerAndExtend(t *testing.T) {
	a, b := spawn(t), spawn(t)
	tb := WalkServer(os.Getpid(), nil)
	if tb == nil {
		t.Skip("no children files on this kernel")
	}
	want, err := WalkTrees(context.Background(), []int{a.Process.Pid, b.Process.Pid}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*exec.Cmd{a, b} {
		if got, w := pids(tb.Tree(c.Process.Pid)), pids(want.Tree(c.Process.Pid)); strings.Join(got, ",") != strings.Join(w, ",") {
			t.Errorf("server walk: %v, roots walk: %v", got, w)
		}
	}
	// A table read under another process lacks b's tree until Extend.
	only := WalkServer(a.Process.Pid, nil)
	if only.Get(b.Process.Pid) != nil {
		t.Fatalf("b's shell is not a's child")
	}
	only.Extend([]int{a.Process.Pid, b.Process.Pid})
	if got := pids(only.Tree(b.Process.Pid)); strings.Join(got, ",") != strings.Join(pids(want.Tree(b.Process.Pid)), ",") {
		t.Errorf("extended: %v", got)
	}
	// The relink keeps each child once.
	if got := pids(only.Tree(a.Process.Pid)); strings.Join(got, ",") != strings.Join(pids(want.Tree(a.Process.Pid)), ",") {
		t.Errorf("a's tree after Extend: %v", got)
	}
}

// pids is a tree as pid<ppid only: a process's comm and groups change as
// it execs, and the two walks compared read at different moments.
func pids(ps []*Proc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d<%d", p.PID, p.PPID))
	}
	return out
}

// A walk stops below a process stop claims: its descendants are not read,
// every other tree is read whole, and the claimed process is nearest the
// shell in its tree as it was. A process stop does not claim (npm exec,
// node) is descended through.
func TestTreesAtStops(t *testing.T) {
	f := newFake(t, true)
	// 10 bash → 11 npm exec → 14 node → 15 claude (4 threads; thread 17
	// forked 16) → 16 mcp-server; 20 zsh → 21 make → 22 cc.
	f.add(t, 10, 1, "bash", 1, map[int][]int{10: {11}})
	f.add(t, 11, 10, "npm exec", 1, map[int][]int{11: {14}})
	f.add(t, 14, 11, "node", 1, map[int][]int{14: {15}})
	f.add(t, 15, 14, "claude", 4, map[int][]int{17: {16}})
	f.add(t, 16, 15, "mcp-server", 1)
	f.add(t, 20, 1, "zsh", 1, map[int][]int{20: {21}})
	f.add(t, 21, 20, "make", 1, map[int][]int{21: {22}})
	f.add(t, 22, 21, "cc", 1)
	var asked []string
	stop := func(names []string) bool {
		asked = append(asked, names[0])
		return names[0] == "claude"
	}
	tb, err := treesAt(f.dir, []int{10, 20}, stop)
	if err != nil {
		t.Fatal(err)
	}
	if got := comms(tb.Tree(10)); got != "bash npm exec node claude" {
		t.Errorf("tree of 10 = %q, want it to end at claude", got)
	}
	if tb.Get(16) != nil {
		t.Errorf("the claimed process's child was read")
	}
	if got := comms(tb.Tree(20)); got != "zsh make cc" {
		t.Errorf("tree of 20 = %q", got)
	}
	// Shells are never asked: they are never an agent.
	for _, n := range asked {
		if Shells[n] {
			t.Errorf("stop was asked about the shell %q", n)
		}
	}
	// Extend stops where the walk stopped.
	f.add(t, 30, 1, "sh", 1, map[int][]int{30: {31}})
	f.add(t, 31, 30, "claude", 1, map[int][]int{31: {32}})
	f.add(t, 32, 31, "tool", 1)
	tb.Extend([]int{30})
	if got := comms(tb.Tree(30)); got != "sh claude" {
		t.Errorf("extended tree of 30 = %q", got)
	}
}
