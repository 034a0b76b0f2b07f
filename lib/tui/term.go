//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tui

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The sequences that take the terminal over and give it back: the
// alternate screen, a hidden cursor, and mouse reporting (1003 any-motion,
// so the pointer is reported without a button held; 1006 SGR encoding).
const (
	EnterSeq = "\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l\x1b[?1003h\x1b[?1006h"
	LeaveSeq = "\x1b[?1006l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[0m\x1b[?25h\x1b[?1049l"
)

// ErrNotTerminal is Open on something that is not a terminal.
var ErrNotTerminal = errors.New("not a terminal")

// Term is a terminal taken over: raw mode, the alternate screen, no
// cursor, mouse reporting. Restore gives it back exactly once, and runs on
// SIGTERM, SIGHUP, SIGINT and SIGQUIT before they are reported on Quit;
// callers defer Restore (which also covers a panic in their goroutine) and
// defer Guard in every goroutine they start.
type Term struct {
	in, out *os.File
	saved   unix.Termios

	mu     sync.Mutex
	closed bool
	once   sync.Once
	stop   chan struct{}
	sigs   chan os.Signal

	// Quit delivers the signal that ended the session (the terminal is
	// already restored when it arrives); Resize a SIGWINCH.
	Quit   chan os.Signal
	Resize chan struct{}
}

// Open takes over the terminal on in (keys) and out (drawing).
func Open(in, out *os.File) (*Term, error) {
	fd := int(in.Fd())
	st, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, ErrNotTerminal
	}
	t := &Term{in: in, out: out, saved: *st, stop: make(chan struct{}),
		sigs: make(chan os.Signal, 4), Quit: make(chan os.Signal, 1), Resize: make(chan struct{}, 1)}
	raw := *st
	makeRaw(&raw)
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, err
	}
	signal.Notify(t.sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGWINCH)
	go t.watchSignals()
	if _, err := t.Write([]byte(EnterSeq)); err != nil {
		t.Restore()
		return nil, err
	}
	return t, nil
}

// makeRaw is cfmakeraw: no echo, no line discipline, no signals from keys
// (ctrl-c arrives as a byte), no output processing, 8-bit, read returns
// after one byte.
func makeRaw(t *unix.Termios) {
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
}

func (t *Term) watchSignals() {
	for {
		select {
		case <-t.stop:
			return
		case s := <-t.sigs:
			if s == syscall.SIGWINCH {
				select {
				case t.Resize <- struct{}{}:
				default:
				}
				continue
			}
			t.Restore()
			select {
			case t.Quit <- s:
			default:
			}
			return
		}
	}
}

// Restore gives the terminal back: mouse reporting off, the cursor shown,
// the main screen, the saved termios. Later writes are dropped.
func (t *Term) Restore() {
	t.once.Do(func() {
		t.mu.Lock()
		_, _ = t.out.Write([]byte(LeaveSeq))
		_ = unix.IoctlSetTermios(int(t.in.Fd()), ioctlSetTermios, &t.saved)
		t.closed = true
		t.mu.Unlock()
		signal.Stop(t.sigs)
		close(t.stop)
	})
}

// Guard is deferred at the top of a goroutine: a panic there restores the
// terminal before it crashes the program.
func (t *Term) Guard() {
	if r := recover(); r != nil {
		t.Restore()
		panic(r)
	}
}

// Write draws on the terminal; after Restore it writes nothing.
func (t *Term) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return len(p), nil
	}
	return t.out.Write(p)
}

// Size is the terminal's columns and rows (80×24 when unknown).
func (t *Term) Size() (cols, rows int) {
	for _, f := range []*os.File{t.out, t.in} {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 && ws.Row > 0 {
			return int(ws.Col), int(ws.Row)
		}
	}
	return 80, 24
}

// Events reads keys and mouse reports until the terminal is restored or
// its input ends (then the channel closes). A lone Esc is reported once
// nothing has followed it for wait.
func (t *Term) Events(wait time.Duration) <-chan Event {
	out := make(chan Event, 64)
	go func() {
		defer t.Guard()
		readEvents(int(t.in.Fd()), wait, t.stop, out)
	}()
	return out
}

// readEvents is the input loop on fd: poll (so stop is noticed without a
// blocked read), read, decode, and flush a pending Esc after wait.
func readEvents(fd int, wait time.Duration, stop <-chan struct{}, out chan<- Event) {
	defer close(out)
	var d Decoder
	buf := make([]byte, 4096)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	var deadline time.Time
	emit := func(evs []Event) bool {
		for _, ev := range evs {
			select {
			case out <- ev:
			case <-stop:
				return false
			}
		}
		return true
	}
	for {
		ms := 100
		if d.Pending() {
			ms = max(int(time.Until(deadline)/time.Millisecond), 0)
		}
		n, err := unix.Poll(fds, ms)
		select {
		case <-stop:
			return
		default:
		}
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if n == 0 {
			if d.Pending() && !time.Now().Before(deadline) && !emit(d.Flush()) {
				return
			}
			continue
		}
		k, err := unix.Read(fd, buf)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if k <= 0 {
			return // end of input: the terminal is gone
		}
		if !emit(d.Feed(buf[:k])) {
			return
		}
		if d.Pending() {
			deadline = time.Now().Add(wait)
		}
	}
}
