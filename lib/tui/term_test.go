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
	// The continuation wait is a second, not the real 30 ms: the split
	// below is 10 ms apart as written, but a loaded machine can hold the
	// writer past 30 ms, and the report then read as a lone Esc and its
	// tail (seen at a load of 29 on 2 cores).
	const wait = time.Second
	go readEvents(int(r.Fd()), wait, stop, out)
	next := func() Event {
		select {
		case ev := <-out:
			return ev
		case <-time.After(5 * time.Second):
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
	if d := time.Since(start); d < wait-5*time.Millisecond {
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
