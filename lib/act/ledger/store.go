package ledger

import (
	"github.com/tmaproject/tma/lib/atomicfile"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// FileName is the ledger's name in the runtime directory; the lock beside
// it is LockName (the ledger itself is replaced by rename, so it cannot
// carry the lock).
const (
	FileName = "receipts.jsonl"
	LockName = "receipts.lock"
)

// RuntimeDir is tma's runtime directory: $XDG_RUNTIME_DIR/tma when
// XDG_RUNTIME_DIR is an absolute path, else /tmp/tma-<uid>. It is a
// path only; Ensure creates and checks it.
func RuntimeDir(getenv func(string) string) string {
	if x := getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "tma")
	}
	return filepath.Join("/tmp", "tma-"+strconv.Itoa(os.Getuid()))
}

// Ensure creates dir 0700 when it is missing and refuses one that is not a
// private directory of this user (a symlink, another owner, group or world
// access): in /tmp anyone could have made it first.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return checkPrivate(dir)
}

func checkPrivate(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("runtime directory %s is not a directory", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("runtime directory %s belongs to uid %d, not to this user", dir, sys.Uid)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("runtime directory %s is open to others (mode %04o; want 0700)", dir, st.Mode().Perm())
	}
	return nil
}

// TornError is a ledger with a line that cannot be parsed.
type TornError struct {
	Path string
	Err  error
}

func (e *TornError) Error() string {
	return fmt.Sprintf("the receipt ledger %s cannot be parsed: %v", e.Path, e.Err)
}

// Read reads the ledger at path without the lock (a rename replaces it
// whole): no file is an empty ledger; a line that does not parse is a
// TornError. A directory that is not private is an error: its contents
// are not ours to trust.
func Read(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	es, err := Parse(b)
	if err != nil {
		return nil, &TornError{Path: path, Err: err}
	}
	return es, nil
}

// Store is the ledger in one directory, for writers.
type Store struct {
	Dir   string
	Now   func() int64
	Alive func(pid int) bool // nil: Alive
}

// Path is the ledger file.
func (s *Store) Path() string { return filepath.Join(s.Dir, FileName) }

// Alive reports whether a process with this pid exists on this host.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Update runs fn on the settled ledger under the lock and writes what it
// returns (evicted to Keep) when fn says so or settling changed something.
func (s *Store) Update(fn func(es []Entry, now int64) ([]Entry, bool)) error {
	if err := Ensure(s.Dir); err != nil {
		return err
	}
	lf, err := os.OpenFile(filepath.Join(s.Dir, LockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lf.Close()
	for {
		err = syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", lf.Name(), err)
	}
	defer func() { _ = syscall.Flock(int(lf.Fd()), syscall.LOCK_UN) }()

	es, err := Read(s.Path())
	if err != nil {
		return err
	}
	alive := s.Alive
	if alive == nil {
		alive = Alive
	}
	now := s.Now()
	es, settled := Settle(es, now, alive)
	es, write := fn(es, now)
	if !write && !settled {
		return nil
	}
	return atomicfile.Write(s.Path(), Encode(Evict(es, Keep)), 0o600)
}

// Claim is what Claim found.
type Claim struct {
	State State // Free: the slot is now this dispatch's; Answered: replay Entry; Claimed: another dispatch is in flight
	Entry Entry
}

// Claim takes slot for the dispatch described by c (its Slot, Nonce, PID,
// DeadlineMS, Action, Pane, Device; AtMS is set here) unless the slot holds
// a receipt within its TTL (returned to replay) or another dispatch's claim
// in flight (returned to wait on).
func (s *Store) Claim(c Entry) (Claim, error) {
	var got Claim
	err := s.Update(func(es []Entry, now int64) ([]Entry, bool) {
		st, e := Lookup(es, c.Slot, now)
		if st != Free {
			got = Claim{State: st, Entry: *e}
			return es, false
		}
		c.V, c.AtMS, c.Outcome, c.ExitCode = 1, now, nil, nil
		got = Claim{State: Free, Entry: c}
		return Put(es, c), true
	})
	return got, err
}

// Finish writes this dispatch's receipt (see the pure Finish). ok is false
// when another dispatch owns the slot now, and nothing was written.
func (s *Store) Finish(e Entry) (ok bool, err error) {
	err = s.Update(func(es []Entry, now int64) ([]Entry, bool) {
		var out []Entry
		out, ok = Finish(es, e)
		return out, ok
	})
	return ok, err
}

// Release frees the slot this dispatch (nonce) claimed.
func (s *Store) Release(slot, nonce string) error {
	return s.Update(func(es []Entry, now int64) ([]Entry, bool) {
		out := Release(es, slot, nonce)
		return out, len(out) != len(es)
	})
}
