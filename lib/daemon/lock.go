package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/act/ledger"
)

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
	// The directory may be under $TMPDIR, where another user could have
	// made it first: a lock file not our own could name any of our pids for
	// the SIGHUP.
	if err := ownedBySelf(f); err != nil {
		return nil, err
	}
	// A shared lock we can take means no daemon holds its exclusive one.
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return nil, nil
	case !errors.Is(err, syscall.EWOULDBLOCK):
		return nil, err
	}
	// A daemon that has just taken the lock writes its pid an instant
	// later: a held lock naming no live pid is read again, briefly.
	var r *Running
	for i := 0; ; i++ {
		r, err = readHolder(f)
		if (r != nil && err == nil) || i == 5 {
			return r, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readHolder(f *os.File) (*Running, error) {
	buf := make([]byte, 256)
	n, _ := f.ReadAt(buf, 0)
	r, ok := parseLock(string(buf[:n]))
	if !ok {
		return nil, ErrLockUnreadable
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return nil, nil // the holder is not the pid it wrote: not a daemon we can signal
	}
	return r, nil
}

func ownedBySelf(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("belongs to uid %d, not to this user", sys.Uid)
	}
	return nil
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

// Stop sends the daemon SIGTERM, never more: it reaps its control clients
// only on a clean exit.
func (r *Running) Stop() error { return syscall.Kill(r.PID, syscall.SIGTERM) }

// Lock is the single-instance lock a running daemon holds.
type Lock struct {
	f *os.File
}

// ErrRunning is Acquire finding another daemon holding the lock.
type ErrRunning struct{ Holder *Running }

func (e *ErrRunning) Error() string {
	if e.Holder == nil {
		return "a daemon is already running for this server"
	}
	return fmt.Sprintf("a daemon is already running for this server (pid %d)", e.Holder.PID)
}

// acquireFor is how long Acquire retries a held lock: a Find elsewhere
// holds a shared lock for an instant, and must not turn a daemon away.
const acquireFor = 300 * time.Millisecond

// Acquire takes p.Lock for this process and writes `<pid> <version>` into
// it. The runtime directory is created 0700 and must be this user's and
// private; the lock file must be this user's. A lock file left by a dead
// daemon is taken over (nobody holds its flock). Another daemon holding it
// is *ErrRunning. The lock lasts until Release or this process's exit.
func Acquire(p Paths, version string) (*Lock, error) {
	if err := EnsureDir(p.Dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p.Lock, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock %s: %w", p.Lock, err)
	}
	if err := ownedBySelf(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("daemon lock %s %w", p.Lock, err)
	}
	deadline := time.Now().Add(acquireFor)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("daemon lock %s: %w", p.Lock, err)
		}
		if time.Now().After(deadline) {
			h, _ := readHolder(f)
			f.Close()
			return nil, &ErrRunning{Holder: h}
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Written over the old body, then cut to length: a reader of the first
	// line sees the old pid or the new one, never an empty file.
	body := strconv.Itoa(os.Getpid()) + " " + version + "\n"
	_, err = f.WriteAt([]byte(body), 0)
	if err == nil {
		err = f.Truncate(int64(len(body)))
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("daemon lock %s: %w", p.Lock, err)
	}
	_ = f.Sync()
	return &Lock{f: f}, nil
}

// Release gives the lock up. The file keeps its body (doctor reads the
// last daemon's version from it); only a held flock makes it a daemon.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

// EnsureDir creates the runtime directory 0700 and refuses one that is
// not a private directory of this user, as the receipt ledger's is checked.
func EnsureDir(dir string) error { return ledger.Ensure(dir) }

// RemoveStaleSocket removes a socket file a dead daemon left at p.Socket.
// Call it holding the lock: no live daemon can own the file then. A file
// there that is not a socket, or not this user's, is refused.
func RemoveStaleSocket(p Paths) error {
	st, err := os.Lstat(p.Socket)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("daemon socket %s belongs to uid %d, not to this user", p.Socket, sys.Uid)
	}
	if st.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("daemon socket path %s holds something that is not a socket", p.Socket)
	}
	return os.Remove(p.Socket)
}
