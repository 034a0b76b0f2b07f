//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tui

import (
	"os"
	"testing"
	"time"
)

// The input loop on a pipe: a sequence split across writes is one event, a
// lone Esc arrives after the wait, and the loop ends with its input.
func TestReadEvents(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop := make(chan struct{})
	out := make(chan Event, 16)
	go readEvents(int(r.Fd()), 30*time.Millisecond, stop, out)
	next := func() Event {
		select {
		case ev := <-out:
			return ev
		case <-time.After(2 * time.Second):
			t.Fatal("no event")
		}
		return Event{}
	}
	w.Write([]byte("\x1b[<35;"))
	time.Sleep(10 * time.Millisecond)
	w.Write([]byte("4;2M"))
	if ev := next(); ev.Mouse != MouseMotion || ev.X != 3 || ev.Y != 1 {
		t.Errorf("split report: %+v", ev)
	}
	start := time.Now()
	w.Write([]byte{0x1b})
	if ev := next(); ev.Key != KeyEsc {
		t.Errorf("lone Esc: %+v", ev)
	}
	if d := time.Since(start); d < 25*time.Millisecond {
		t.Errorf("Esc reported after %v, before the wait", d)
	}
	w.Write([]byte("\x03"))
	if ev := next(); ev.Name() != "ctrl-c" {
		t.Errorf("ctrl-c: %+v", ev)
	}
	w.Close()
	select {
	case _, ok := <-out:
		if ok {
			t.Error("event after the end of input")
		}
	case <-time.After(2 * time.Second):
		t.Error("the loop did not end with its input")
	}
	close(stop)
}

func TestOpenRefusesAPipe(t *testing.T) {
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if _, err := Open(r, w); err != ErrNotTerminal {
		t.Errorf("Open on a pipe: %v", err)
	}
}
