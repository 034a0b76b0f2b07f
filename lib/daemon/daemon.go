package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Paths are where the daemon of one tmux server lives: one daemon per
// server, keyed by the server's #{socket_path}.
type Paths struct {
	Server string // the tmux server's socket path
	Socket string // <tmpdir>/tma-<uid>/<16 hex>.sock
	Lock   string // <tmpdir>/tma-<uid>/<16 hex>.lock: pid and version, flock'd while it runs
}

// For returns the daemon paths of the server whose socket is server. The
// name is the first 16 hex digits of the SHA-256 of the socket path, in a
// per-user directory under $TMPDIR (else /tmp).
func For(server string) Paths {
	sum := sha256.Sum256([]byte(server))
	base := filepath.Join(os.TempDir(), "tma-"+strconv.Itoa(os.Getuid()), hex.EncodeToString(sum[:8]))
	return Paths{Server: server, Socket: base + ".sock", Lock: base + ".lock"}
}

// Running is a daemon found holding its lock.
type Running struct {
	PID     int
	Version string // "" when the lock file does not name one
}

// ErrLockUnreadable: the lock is held but its content names no pid.
var ErrLockUnreadable = errors.New("daemon lock held but names no pid")

// Find reports the daemon holding p.Lock, nil when none does. The lock file
// is `<pid> <version>` on its first line; it counts only while a process
// holds an flock on it, so a file a crashed daemon left behind (or a pid
// the kernel has since reused) never reads as a running daemon.
func Find(p Paths) (*Running, error) {
	f, err := os.Open(p.Lock)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The directory is under $TMPDIR, where another user could have made it
	// first: a lock file not our own could name any of our pids for the
	// SIGHUP.
	if st, err := f.Stat(); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
			return nil, fmt.Errorf("belongs to uid %d, not to this user", sys.Uid)
		}
	}
	// A shared lock we can take means no daemon holds its exclusive one.
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return nil, nil
	case !errors.Is(err, syscall.EWOULDBLOCK):
		return nil, err
	}
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	r, ok := parseLock(string(buf[:n]))
	if !ok {
		return nil, ErrLockUnreadable
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return nil, nil // the holder is not the pid it wrote: not a daemon we can signal
	}
	return r, nil
}

// parseLock reads `<pid> [version]` from the lock file's first line.
func parseLock(s string) (*Running, bool) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return nil, false
	}
	r := &Running{PID: pid}
	if len(f) > 1 {
		r.Version = f[1]
	}
	return r, true
}

// Reload sends the daemon SIGHUP: re-read config and manifests in place.
func (r *Running) Reload() error { return syscall.Kill(r.PID, syscall.SIGHUP) }
