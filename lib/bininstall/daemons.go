package bininstall

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
)

// Daemon is one running daemon of this user, as its runtime directory and
// its hello show it.
type Daemon struct {
	Server  string // the tmux server's #{socket_path}
	PID     int
	Version string
	Paths   daemon.Paths
}

// Daemons lists the daemons answering in the runtime directory getenv
// names (daemon.Dir), ordered by server. A socket nothing answers on is
// left out: no daemon runs there.
func Daemons(getenv func(string) string) []Daemon {
	socks, _ := filepath.Glob(filepath.Join(daemon.Dir(getenv), "*.sock"))
	var out []Daemon
	for _, s := range socks {
		h, err := daemon.Ask(daemon.Paths{Socket: s}, 2*time.Second)
		if err != nil || h == nil || h.Server == "" {
			continue
		}
		p := daemon.ForEnv(h.Server, getenv)
		if p.Socket != s {
			continue // a hello naming another server's socket: not ours to judge
		}
		out = append(out, Daemon{Server: h.Server, PID: h.PID, Version: h.Version, Paths: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// Exe is what is known of the executable a process runs.
type Exe struct {
	Known bool // the system says (Linux: /proc/<pid>/exe)
	// Path is the path it was started from; Replaced: that path now names
	// another file (an install renamed a new build over it).
	Path     string
	Replaced bool
	// Args are its arguments after argv[0] (Linux: /proc/<pid>/cmdline).
	Args []string
	// Env is its environment (Linux: /proc/<pid>/environ, readable for
	// the same user): a replacement started with it runs as the old one
	// did, with the environment the launcher or the tmux server gave it
	// rather than that of the shell make install ran in.
	Env []string
}

// ExeOf reads what process pid executes. Only Linux says (/proc); elsewhere
// Known is false and the caller falls back to the version the daemon
// reports.
func ExeOf(pid int) Exe {
	if runtime.GOOS != "linux" {
		return Exe{}
	}
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	link, err := os.Readlink(filepath.Join(proc, "exe"))
	if err != nil {
		return Exe{}
	}
	e := Exe{Known: true, Path: strings.TrimSuffix(link, " (deleted)")}
	// /proc/<pid>/exe opens the file the process runs, even once unlinked.
	running, err1 := os.Stat(filepath.Join(proc, "exe"))
	now, err2 := os.Stat(e.Path)
	e.Replaced = err1 == nil && (err2 != nil || !os.SameFile(running, now))
	if b, err := os.ReadFile(filepath.Join(proc, "environ")); err == nil && len(b) > 0 {
		e.Env = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if b, err := os.ReadFile(filepath.Join(proc, "cmdline")); err == nil {
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) > 1 {
			e.Args = args[1:]
		}
	}
	return e
}

// From reports whether the process was started from the file name in
// bindir (bindir compared through symlinks).
func (e Exe) From(bindir, name string) bool {
	want := filepath.Join(bindir, name)
	if e.Path == want {
		return true
	}
	if r, err := filepath.EvalSymlinks(bindir); err == nil && e.Path == filepath.Join(r, name) {
		return true
	}
	return false
}

// Globals are the --config and --manifest-dir a daemon was started with
// (from its arguments), to start its replacement with the same ones.
func (e Exe) Globals() []string {
	var out []string
	for i := 0; i < len(e.Args); i++ {
		a := e.Args[i]
		for _, f := range []string{"--config", "--manifest-dir"} {
			switch {
			case a == f && i+1 < len(e.Args):
				out = append(out, f, e.Args[i+1])
				i++
			case strings.HasPrefix(a, f+"="):
				out = append(out, f, a[len(f)+1:])
			}
		}
		if a == "daemon" {
			break
		}
	}
	return out
}
