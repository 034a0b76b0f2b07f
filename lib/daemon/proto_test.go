package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// A stand-in daemon that knows only hello: what a newer client meets on
// an older daemon.
func oldDaemon(t *testing.T) string {
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadBytes('\n')
				var req Request
				json.Unmarshal(line, &req)
				rep := Reply{Code: CodeUnknownVerb, Error: "unknown verb " + req.Verb}
				if req.Verb == VerbHello {
					rep = Reply{OK: true, Hello: &Hello{Version: "0.0.9", PID: 42}}
				}
				b, _ := json.Marshal(rep)
				c.Write(append(b, '\n'))
			}()
		}
	}()
	return sock
}

func TestCallRefusalAndNoDaemon(t *testing.T) {
	sock := oldDaemon(t)
	_, _, err := Call(sock, Request{Verb: VerbTransitions}, time.Second)
	var r *Refused
	if !errors.As(err, &r) || r.Code != CodeUnknownVerb {
		t.Fatalf("unknown verb: %v", err)
	}
	h, err := Ask(Paths{Socket: sock}, time.Second)
	if err != nil || h == nil || h.Version != "0.0.9" {
		t.Fatalf("hello: %+v %v", h, err)
	}
	if _, _, err := Call(filepath.Join(t.TempDir(), "none.sock"), Request{Verb: VerbHello}, time.Second); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("no socket: %v", err)
	}
	if h, err := Ask(Paths{Socket: filepath.Join(t.TempDir(), "none.sock")}, time.Second); h != nil || err != nil {
		t.Fatalf("ask with none: %+v %v", h, err)
	}
	// A socket nobody listens on (a dead daemon's) is no daemon too.
	dead := filepath.Join(t.TempDir(), "dead.sock")
	ln, _ := net.Listen("unix", dead)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, _, err := Call(dead, Request{Verb: VerbHello}, time.Second); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("dead socket: %v", err)
	}
}

// A daemon that accepts and never answers costs the caller its deadline,
// no more.
func TestCallIsBounded(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "w.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, _ := ln.Accept()
		time.Sleep(2 * time.Second)
		if c != nil {
			c.Close()
		}
	}()
	start := time.Now()
	_, _, err = Call(sock, Request{Verb: VerbHello}, 100*time.Millisecond)
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("a silent daemon: %v after %s", err, time.Since(start))
	}
}
