//go:build linux

package notify

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmaproject/tma/lib/config"
)

// pty is a pseudo-terminal pair: the slave stands for a pane's tty, the
// master for tmux, which reads what the pane printed.
func pty(t *testing.T) (master *os.File, slave string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	// Held open, so the pty stays usable between the writes.
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open slave: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	// The bytes as written: no \n mapping on the way to the master.
	if tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS); err == nil {
		tio.Oflag &^= unix.OPOST
		_ = unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio)
	}
	return m, s.Name()
}

// pending is what the pane printed that tmux has not read yet. A pty
// hands the master its bytes a moment after the write, so it waits a
// little for the first of them: bytes written only after the caller
// returns are never seen.
func pending(m *os.File) string {
	var got strings.Builder
	buf := make([]byte, 4096)
	wait := 200 * time.Millisecond
	for {
		_ = m.SetReadDeadline(time.Now().Add(wait))
		n, err := m.Read(buf)
		got.Write(buf[:max(n, 0)])
		if err != nil || n == 0 {
			return got.String()
		}
		wait = 20 * time.Millisecond
	}
}

// orderExec is the tmux of a fire: at the message's call it reads every
// pane's tty, recording what had already been printed.
type orderExec struct {
	masters []*os.File
	calls   [][]string
	printed []string // per master, what was on it at the first call
}

func (x *orderExec) Exec(_ context.Context, lines []string) (string, error) {
	x.calls = append(x.calls, lines)
	if len(x.calls) == 1 {
		for _, m := range x.masters {
			x.printed = append(x.printed, pending(m))
		}
	}
	return "", nil
}

func oscSettings(t *testing.T) Settings {
	cfg := config.Default()
	cfg.Notify.OSC, cfg.Notify.OSC777, cfg.Notify.Log = true, true, ""
	none := func(string) (string, bool) { return "", false }
	return Settings{Config: cfg, Env: none, Getenv: func(string) string { return "" }, Home: t.TempDir()}
}

// tmux drops a pane's passthrough while a client shows a message, so the
// OSC bytes are on the tty before the message's tmux call (issue 27 item 8).
func TestFireWritesTheBytesBeforeTheMessage(t *testing.T) {
	m, tty := pty(t)
	x := &orderExec{masters: []*os.File{m}}
	f := fired()
	f.TTY, f.Clients = tty, []string{"/dev/pts/99"}
	o := Fire(context.Background(), oscSettings(t), x, nil, f, 2_000_000)
	if len(o.Errors) != 0 || !o.TTY || o.Shown != 1 {
		t.Fatalf("outcome %+v", o)
	}
	want := Passthrough(OSC9("claude", "blocked")) + Passthrough(OSC777("claude", "blocked"))
	if len(x.printed) != 1 || x.printed[0] != want {
		t.Errorf("on the tty when the message was sent: %q, want %q", x.printed, want)
	}
}

// Several episodes won in one call: every pane's bytes first, then every
// message in one tmux call, since one message freezes the client for all
// of them.
func TestFireAllWritesEveryPanesBytesBeforeAnyMessage(t *testing.T) {
	m1, tty1 := pty(t)
	m2, tty2 := pty(t)
	x := &orderExec{masters: []*os.File{m1, m2}}
	a, b, muted := fired(), fired(), fired()
	a.TTY, a.Clients = tty1, []string{"/dev/pts/99"}
	b.Pane, b.Trigger, b.State, b.TTY, b.Clients = "%6", Done, "idle", tty2, []string{"/dev/pts/99", "/dev/pts/98"}
	muted.Pane, muted.TTY, muted.MuteUntil, muted.Clients = "%7", tty2, 3_000_000, []string{"/dev/pts/99"}
	out := FireAll(context.Background(), oscSettings(t), x, nil, []*Fired{a, muted, b}, 2_000_000)
	if len(out) != 3 || out[0].Shown != 1 || out[2].Shown != 2 || !out[0].TTY || !out[2].TTY || !out[1].Muted || out[1].TTY || out[1].Shown != 0 {
		t.Fatalf("outcomes %+v", out)
	}
	if len(x.calls) != 1 || len(x.calls[0]) != 3 || !strings.Contains(x.calls[0][2], "claude done") {
		t.Fatalf("message calls %q", x.calls)
	}
	if x.printed[0] != Passthrough(OSC9("claude", "blocked"))+Passthrough(OSC777("claude", "blocked")) ||
		x.printed[1] != Passthrough(OSC9("claude", "done"))+Passthrough(OSC777("claude", "done")) {
		t.Errorf("on the ttys when the messages were sent: %q", x.printed)
	}
}
