//go:build linux

package tui

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty is a pseudo-terminal pair: the master reads what the program
// drew, the slave is the program's terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	// Non-blocking, so the read deadlines below hold (a blocking fd
	// ignores them and a test that never sees its bytes would hang).
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open slave: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// drawn reads what the program wrote until want shows up.
func drawn(t *testing.T, m *os.File, want string) string {
	t.Helper()
	var got strings.Builder
	buf := make([]byte, 4096)
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(got.String(), want) && time.Now().Before(deadline) {
		_ = m.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, _ := m.Read(buf)
		got.Write(buf[:n])
	}
	if !strings.Contains(got.String(), want) {
		t.Fatalf("never drew %q; got %q", want, got.String())
	}
	return got.String()
}

func lflag(t *testing.T, f *os.File) uint32 {
	st, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	return st.Lflag
}

func TestTermRawAndRestore(t *testing.T) {
	m, s := openPty(t)
	before := lflag(t, s)
	term, err := Open(s, s)
	if err != nil {
		t.Fatal(err)
	}
	drawn(t, m, EnterSeq)
	if l := lflag(t, s); l&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("not raw: lflag %#x", l)
	}
	// ctrl-c is a byte, not a signal.
	events := term.Events(20 * time.Millisecond)
	if _, err := m.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if ev.Name() != "ctrl-c" {
			t.Errorf("ctrl-c read as %+v", ev)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no event for ctrl-c")
	}
	term.Restore()
	term.Restore() // once only
	drawn(t, m, LeaveSeq)
	if l := lflag(t, s); l != before {
		t.Errorf("lflag %#x after restore, want %#x", l, before)
	}
	if _, ok := <-events; ok {
		t.Error("events still open after restore")
	}
}

func TestTermGuardRestoresOnPanic(t *testing.T) {
	m, s := openPty(t)
	before := lflag(t, s)
	term, err := Open(s, s)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("the panic was not passed on: %v", r)
			}
		}()
		defer term.Guard()
		panic("boom")
	}()
	drawn(t, m, LeaveSeq)
	if l := lflag(t, s); l != before {
		t.Errorf("lflag %#x after a panic, want %#x", l, before)
	}
}

// SIGTERM restores the terminal before it is reported on Quit.
func TestTermSignalRestores(t *testing.T) {
	m, s := openPty(t)
	before := lflag(t, s)
	term, err := Open(s, s)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Restore()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case sig := <-term.Quit:
		if sig != syscall.SIGTERM {
			t.Errorf("quit on %v", sig)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("SIGTERM not reported")
	}
	drawn(t, m, LeaveSeq)
	if l := lflag(t, s); l != before {
		t.Errorf("lflag %#x after SIGTERM, want %#x", l, before)
	}
	// A frame drawn after the restore would land on the user's shell.
	if _, err := term.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	if got := drawnFor(m, 200*time.Millisecond); strings.Contains(got, "late") {
		t.Errorf("drew after the restore: %q", got)
	}
}

// drawnFor is everything the program drew within d.
func drawnFor(m *os.File, d time.Duration) string {
	var got strings.Builder
	buf := make([]byte, 4096)
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		_ = m.SetReadDeadline(deadline)
		n, _ := m.Read(buf)
		got.Write(buf[:n])
	}
	return got.String()
}
