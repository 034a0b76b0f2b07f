package proc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is one process.
type Proc struct {
	PID, PPID, PGID, TPGID int
	Comm                   string // kernel comm, truncated to 15 bytes
	argv0                  string
	argvRead               bool
	threads                int // from stat; 0 when unknown (ps)
}

// Table is a snapshot of the process table.
type Table struct {
	procs    map[int]*Proc
	children map[int][]int
	root     string // "/proc", or "" when built from ps
	stop     Stop   // the walk's, kept for Extend
}

// Stop reports whether a walk may leave a process's descendants unread,
// given the names Table.Names gives for it. A scan stops at a process a
// manifest claims by name alone: the pane's agent is the claimed process
// nearest the pane's shell, so nothing below a claimed process can be the
// answer, and an agent's own children (its threads' children included: a
// read per thread) are the dearest part of a walk. A stopped process's
// children are then absent from the table, so Tree counts fewer processes.
type Stop func(names []string) bool

// Names returns the names a manifest may match for p: the comm and the
// basename of argv[0] (node apps that set process.title change the latter).
func (t *Table) Names(p *Proc) []string {
	// A shell is never an agent: skip its cmdline read (most panes are shells).
	if !p.argvRead && t.root != "" && !Shells[p.Comm] {
		p.argvRead = true
		if b, err := readAll(t.root+"/"+strconv.Itoa(p.PID)+"/cmdline", make([]byte, 512)); err == nil {
			if i := bytes.IndexByte(b, 0); i >= 0 {
				b = b[:i]
			}
			p.argv0 = filepath.Base(strings.TrimSpace(string(b)))
		}
	}
	if p.argv0 != "" && p.argv0 != p.Comm && p.argv0 != "." {
		return []string{p.Comm, p.argv0}
	}
	return []string{p.Comm}
}

// Get returns the process with pid, or nil.
func (t *Table) Get(pid int) *Proc { return t.procs[pid] }

// Tree returns root and all its descendants, breadth first, so the process
// nearest the pane's shell comes first.
func (t *Table) Tree(root int) []*Proc {
	r := t.procs[root]
	if r == nil {
		return nil
	}
	out := []*Proc{r}
	for i := 0; i < len(out); i++ {
		for _, c := range t.children[out[i].PID] {
			if p := t.procs[c]; p != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// Contains reports whether pid is root or one of its descendants.
func (t *Table) Contains(root, pid int) bool {
	for p := t.procs[pid]; p != nil; p = t.procs[p.PPID] {
		if p.PID == root {
			return true
		}
		if p.PPID == p.PID || p.PPID == 0 {
			break
		}
	}
	return false
}

// Shells are the names a pane's tree may hold and still count as "only a shell".
var Shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true,
	"ksh": true, "mksh": true, "tcsh": true, "csh": true, "nu": true, "elvish": true, "xonsh": true, "login": true}

// Walk reads the whole process table: /proc when present, else one `ps` run.
func Walk(ctx context.Context) (*Table, error) {
	if hasProc() {
		return walkProc("/proc")
	}
	return walkPS(ctx)
}

// WalkTrees reads the trees under roots (each root and its descendants) and
// nothing else: a cycle needs its panes' processes, not the host's, and a
// host runs hundreds more. On Linux each process's children come from
// /proc/<pid>/task/<tid>/children; a kernel without that file
// (CONFIG_PROC_CHILDREN unset) gets the whole /proc walk, and a host with
// no /proc one `ps` run.
//
// Where the trees are read by children, the descendants of a process stop
// claims are left unread (stop may be nil; the whole walk and ps read
// everything anyway).
func WalkTrees(ctx context.Context, roots []int, stop Stop) (*Table, error) {
	if !hasProc() {
		return walkPS(ctx)
	}
	return treesAt("/proc", roots, stop)
}

func treesAt(root string, roots []int, stop Stop) (*Table, error) {
	if !hasChildren(root) {
		return walkProc(root)
	}
	return walkTrees(root, roots, stop), nil
}

func hasProc() bool {
	st, err := os.Stat("/proc/self/stat")
	return err == nil && !st.IsDir()
}

// hasChildren probes the children file on this process's main thread.
func hasChildren(root string) bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat(root + "/" + pid + "/task/" + pid + "/children")
	return err == nil
}

// treeWalk reads pane trees in two kinds of step. A process's main
// thread's children come with its stat (two small reads). A threaded
// process's other threads may have forked children too (a child's parent
// is the thread that forked it: node under npx, a Rust agent's worker
// threads), and those cost a read per thread: an agent with a dozen
// threads costs more than a dozen shells. When a fleet's threads would cost
// more reads than the stat of every process the host has left to read, the
// walk reads those instead and links the table by ppid, as the whole walk
// does: either way the trees are exact, and the cost is the smaller one.
type treeWalk struct {
	t        *Table
	buf      []byte
	threaded []*Proc // read, with threads whose children are not read yet
}

// threadReadsFloor: below this many reads for threads the walk does not
// list /proc to compare (a small fleet's threads cost less than the
// listing of a host's processes).
const threadReadsFloor = 256

func walkTrees(root string, roots []int, stop Stop) *Table {
	w := &treeWalk{t: &Table{procs: map[int]*Proc{}, children: map[int][]int{}, root: root, stop: stop}, buf: make([]byte, 4096)}
	queue := append([]int(nil), roots...)
	for {
		w.drain(queue)
		if len(w.threaded) == 0 {
			break
		}
		if w.readRest() {
			break
		}
		queue = nil
		for _, p := range w.threaded {
			queue = w.threadChildren(p, queue)
		}
		w.threaded = nil
	}
	w.t.link()
	return w.t
}

// drain reads every process in queue and, through main threads, their
// descendants.
func (w *treeWalk) drain(queue []int) {
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if pid <= 0 || w.t.procs[pid] != nil {
			continue
		}
		dir := w.t.root + "/" + strconv.Itoa(pid)
		n, err := readInto(dir+"/stat", w.buf)
		if err != nil {
			continue // exited, or never was
		}
		p, ok := parseStat(pid, w.buf[:n])
		if !ok {
			continue
		}
		w.t.procs[pid] = p
		if w.t.stop != nil && !Shells[p.Comm] && w.t.stop(w.t.Names(p)) {
			continue
		}
		queue = w.children(dir+"/task/"+strconv.Itoa(pid)+"/children", queue)
		if p.threads > 1 {
			w.threaded = append(w.threaded, p)
		}
	}
}

// threadChildren queues the children of p's threads other than its main one.
func (w *treeWalk) threadChildren(p *Proc, queue []int) []int {
	dir := w.t.root + "/" + strconv.Itoa(p.PID) + "/task/"
	tids, err := names(dir, w.buf)
	if err != nil {
		return queue // exited
	}
	for _, tid := range tids {
		if tid != strconv.Itoa(p.PID) {
			queue = w.children(dir+tid+"/children", queue)
		}
	}
	return queue
}

func (w *treeWalk) children(path string, queue []int) []int {
	b, err := readAll(path, w.buf)
	if err != nil {
		return queue
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, ' ')
		if i < 0 {
			i = len(b)
		}
		if c, err := strconv.Atoi(string(b[:i])); err == nil {
			queue = append(queue, c)
		}
		b = b[min(i+1, len(b)):]
	}
	return queue
}

// readRest reads the stat of every process not read yet, when that is
// cheaper than reading the pending threads' children; it reports whether
// it did (the table then holds the host, and link finds every child).
func (w *treeWalk) readRest() bool {
	reads := 0
	for _, p := range w.threaded {
		reads += p.threads // one listing of task/, a read per other thread
	}
	if reads < threadReadsFloor {
		return false
	}
	pids, err := names(w.t.root, make([]byte, 64<<10))
	if err != nil {
		return false
	}
	var rest []int
	for _, name := range pids {
		if pid, err := strconv.Atoi(name); err == nil && w.t.procs[pid] == nil {
			rest = append(rest, pid)
		}
	}
	if 2*len(rest) >= reads { // a stat line costs the kernel about two children lists
		return false
	}
	for _, pid := range rest {
		n, err := readInto(w.t.root+"/"+strconv.Itoa(pid)+"/stat", w.buf)
		if err != nil {
			continue
		}
		if p, ok := parseStat(pid, w.buf[:n]); ok {
			w.t.procs[pid] = p
		}
	}
	return true
}

func walkProc(root string) (*Table, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	t := &Table{procs: map[int]*Proc{}, children: map[int][]int{}, root: root}
	buf := make([]byte, 1024) // a stat line is a few hundred bytes; one buffer for the walk
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		n, err := readInto(filepath.Join(root, e.Name(), "stat"), buf)
		if err != nil {
			continue // exited mid-walk
		}
		p, ok := parseStat(pid, buf[:n])
		if !ok {
			continue
		}
		t.procs[pid] = p
	}
	t.link()
	return t, nil
}

// readInto reads the start of a file into buf. A cycle opens a few
// hundred /proc files: plain system calls skip what os.File adds for
// pollable files (a poller registration per open, a finalizer).
func readInto(path string, buf []byte) (int, error) {
	fd, err := open(path, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, buf)
	if n <= 0 {
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	return n, nil
}

// readAll reads a whole file into buf, growing it only for a process with
// more children than fit: /proc files report no size to read up to.
func readAll(path string, buf []byte) ([]byte, error) {
	fd, err := open(path, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		if m <= 0 || err != nil {
			return buf[:n], nil
		}
		n += m
	}
}

// names lists a directory (a process's task/ directory: its threads).
func names(dir string, buf []byte) ([]string, error) {
	fd, err := open(dir, syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []string
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		_, _, out = syscall.ParseDirent(buf[:n], -1, out)
	}
}

func open(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// parseStat reads pid (comm) state ppid pgrp session tty_nr tpgid … and
// num_threads from /proc/<pid>/stat; comm may hold spaces and parentheses,
// so split at the last ')'.
func parseStat(pid int, b []byte) (*Proc, bool) {
	l, r := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if l < 0 || r < l {
		return nil, false
	}
	// After the comm: state ppid pgrp session tty_nr tpgid … num_threads
	// (the 18th). A cycle parses every stat line it reads: no allocation
	// but the comm.
	var f [18]int
	n := 0
	for rest := b[r+1:]; n < len(f); n++ {
		rest = bytes.TrimLeft(rest, " \n")
		if len(rest) == 0 {
			break
		}
		end := bytes.IndexAny(rest, " \n")
		if end < 0 {
			end = len(rest)
		}
		f[n] = atoi(rest[:end])
		rest = rest[end:]
	}
	if n < 6 {
		return nil, false
	}
	threads := 1
	if n == len(f) {
		threads = f[17]
	}
	return &Proc{PID: pid, PPID: f[1], PGID: f[2], TPGID: f[5], Comm: string(b[l+1 : r]), threads: threads}, true
}

// atoi reads a decimal number, as strconv.Atoi would with errors as 0.
func atoi(b []byte) int {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + int(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

func walkPS(ctx context.Context) (*Table, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ps", "-A", "-o", "pid=,ppid=,pgid=,tpgid=,comm=").Output()
	if err != nil {
		return nil, errors.New("process walk failed: " + err.Error())
	}
	t := &Table{procs: map[int]*Proc{}, children: map[int][]int{}}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		n := make([]int, 4)
		for i := range n {
			n[i], _ = strconv.Atoi(f[i])
		}
		comm := filepath.Base(strings.Join(f[4:], " "))
		t.procs[n[0]] = &Proc{PID: n[0], PPID: n[1], PGID: n[2], TPGID: n[3], Comm: comm, argvRead: true}
	}
	t.link()
	return t, nil
}

// link indexes children by parent, in pid order: Tree's order among
// siblings then does not depend on how the table was read.
func (t *Table) link() {
	for pid, p := range t.procs {
		if p.PPID != pid {
			t.children[p.PPID] = append(t.children[p.PPID], pid)
		}
	}
	for _, cs := range t.children {
		slices.Sort(cs)
	}
}

// FromList builds a table from explicit processes (tests).
func FromList(ps []Proc) *Table {
	t := &Table{procs: map[int]*Proc{}, children: map[int][]int{}}
	for i := range ps {
		p := ps[i]
		p.argvRead = true
		t.procs[p.PID] = &p
	}
	t.link()
	return t
}

// Ancestors returns pid and its ancestors, nearest first, reading only their
// stat files (a hook needs its own chain, not the whole table).
func Ancestors(pid int) []*Proc {
	var out []*Proc
	buf := make([]byte, 1024)
	for i := 0; i < 64 && pid > 1; i++ {
		n, err := readInto(filepath.Join("/proc", strconv.Itoa(pid), "stat"), buf)
		if err != nil {
			break
		}
		p, ok := parseStat(pid, buf[:n])
		if !ok {
			break
		}
		out = append(out, p)
		pid = p.PPID
	}
	return out
}

// WalkServer reads the trees of every child of pid (a tmux server's
// children are its panes) and each non-shell's argv, ahead of knowing which
// panes the list will name: a scan runs it while tmux answers. It returns
// nil where trees cannot be read by children (no /proc, no children files),
// which leaves the caller to walk after its list.
// The descendants of a process stop claims are left unread (see Stop; stop
// may be nil).
func WalkServer(pid int, stop Stop) *Table {
	if pid <= 0 || !hasProc() || !hasChildren("/proc") {
		return nil
	}
	t := walkTrees("/proc", []int{pid}, stop)
	for _, p := range t.procs {
		t.Names(p)
	}
	return t
}

// Extend reads the trees of the roots t does not hold (panes that opened
// after t was read) into t. t must come from WalkServer.
func (t *Table) Extend(roots []int) {
	var missing []int
	for _, r := range roots {
		if t.procs[r] == nil {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return
	}
	more := walkTrees(t.root, missing, t.stop)
	for pid, p := range more.procs {
		if t.procs[pid] == nil {
			t.procs[pid] = p
		}
	}
	t.children = map[int][]int{}
	t.link()
}
