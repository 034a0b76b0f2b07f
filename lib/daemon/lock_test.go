package daemon

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func private(t *testing.T) Paths {
	d := filepath.Join(t.TempDir(), "tma")
	return Paths{Server: "x", Dir: d, Socket: filepath.Join(d, "d.sock"), Lock: filepath.Join(d, "d.lock")}
}

// Acquire holds the lock, writes pid and version, and Find sees it; a
// second Acquire (another open file, as another process would have) is
// turned away naming the holder.
func TestAcquireIsExclusive(t *testing.T) {
	p := private(t)
	l, err := Acquire(p, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p.Dir)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(p.Lock); st.Mode().Perm() != 0o600 {
		t.Fatalf("lock mode %v", st.Mode().Perm())
	}
	r, err := Find(p)
	if err != nil || r == nil || r.PID != os.Getpid() || r.Version != "1.2.3" {
		t.Fatalf("find: %+v %v", r, err)
	}
	_, err = Acquire(p, "9.9.9")
	var running *ErrRunning
	if !errors.As(err, &running) || running.Holder == nil || running.Holder.PID != os.Getpid() {
		t.Fatalf("second acquire: %v", err)
	}
	l.Release()
	if r, err := Find(p); r != nil || err != nil {
		t.Fatalf("after release: %+v %v", r, err)
	}
	// The body stays (doctor reads the last version from it).
	if b, _ := os.ReadFile(p.Lock); !strings.HasPrefix(string(b), strconv.Itoa(os.Getpid())+" 1.2.3") {
		t.Fatalf("body %q", b)
	}
}

// A lock a dead daemon left (its pid, no flock) is taken over.
func TestAcquireTakesOverAStaleLock(t *testing.T) {
	p := private(t)
	os.MkdirAll(p.Dir, 0o700)
	os.WriteFile(p.Lock, []byte("999999 0.0.1\nleftover\n"), 0o600)
	l, err := Acquire(p, "0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if b, _ := os.ReadFile(p.Lock); string(b) != strconv.Itoa(os.Getpid())+" 0.2.0\n" {
		t.Fatalf("body %q", b)
	}
}

// A runtime directory open to others, or a lock file another user owns,
// is refused.
func TestAcquireRefusesWhatIsNotPrivate(t *testing.T) {
	p := private(t)
	os.MkdirAll(p.Dir, 0o755)
	os.Chmod(p.Dir, 0o755)
	if _, err := Acquire(p, "0.1.0"); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Fatalf("open dir: %v", err)
	}
	if os.Getuid() != 0 {
		t.Skip("making a file another user owns needs root")
	}
	os.Chmod(p.Dir, 0o700)
	os.WriteFile(p.Lock, nil, 0o600)
	os.Chown(p.Lock, 4242, 4242)
	if _, err := Acquire(p, "0.1.0"); err == nil || !strings.Contains(err.Error(), "uid 4242") {
		t.Fatalf("foreign lock: %v", err)
	}
}

// A socket file left behind is removed; anything else at its path is not.
func TestRemoveStaleSocket(t *testing.T) {
	p := private(t)
	os.MkdirAll(p.Dir, 0o700)
	if err := RemoveStaleSocket(p); err != nil {
		t.Fatalf("nothing there: %v", err)
	}
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if err := RemoveStaleSocket(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket still there: %v", err)
	}
	os.WriteFile(p.Socket, []byte("x"), 0o600)
	if err := RemoveStaleSocket(p); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("regular file: %v", err)
	}
	if os.Getuid() == 0 {
		os.Remove(p.Socket)
		ln, _ := net.Listen("unix", p.Socket)
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
		os.Lchown(p.Socket, 4242, 4242)
		if err := RemoveStaleSocket(p); err == nil || !strings.Contains(err.Error(), "uid 4242") {
			t.Fatalf("foreign socket: %v", err)
		}
	}
}
