package webface

import (
	"strings"
	"testing"
	"time"
)

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct {
		addr string
		tls  bool
		ok   bool
	}{
		{"127.0.0.1:7878", false, true}, {"[::1]:7878", false, true}, {"localhost:7878", false, true},
		{"127.0.0.2:1", false, true}, {"0.0.0.0:7878", false, false}, {":7878", false, false},
		{"192.168.1.5:7878", false, false}, {"192.168.1.5:7878", true, true}, {"7878", false, false},
	} {
		err := CheckListen(tc.addr, tc.tls)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q, %v) = %v", tc.addr, tc.tls, err)
		}
		if err != nil && strings.Contains(tc.addr, ":") && tc.addr != "7878" &&
			(!strings.Contains(err.Error(), "ssh -L") || !strings.Contains(err.Error(), "tailscale serve")) {
			t.Errorf("%s: the refusal names no safe route: %v", tc.addr, err)
		}
	}
}

func TestAllowedHost(t *testing.T) {
	s := &Server{opt: Options{Listen: "127.0.0.1:7878", Hosts: []string{"box.tail1234.ts.net", "front.example:8443"}}}
	for h, want := range map[string]bool{
		"127.0.0.1:7878": true, "localhost:9000": true, "[::1]:1": true, "localhost": true,
		"box.tail1234.ts.net": true, "box.tail1234.ts.net:443": true, "front.example:8443": true,
		"front.example:9": false, "evil.example": false, "localhost.evil.example": false, "": false, "127.0.0.1.nip.io:7878": false,
	} {
		if got := s.allowedHost(h); got != want {
			t.Errorf("allowedHost(%q) = %v", h, got)
		}
	}
}

func TestPairingBucket(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBucket(2, 10*time.Second, func() time.Time { return now })
	for i := range 2 {
		if _, ok := b.take(); !ok {
			t.Fatalf("attempt %d refused", i)
		}
	}
	wait, ok := b.take()
	if ok || wait <= 0 || wait > 10*time.Second {
		t.Fatalf("third attempt: %v %v", wait, ok)
	}
	now = now.Add(10 * time.Second)
	if _, ok := b.take(); !ok {
		t.Fatal("no attempt after the refill")
	}
}

func TestTerminalQR(t *testing.T) {
	q, err := TerminalQR("http://127.0.0.1:7878/pair#abcdefghijklmnopqrstuvwx")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(q, "\n"), "\n")
	w := len([]rune(lines[0]))
	if len(lines) < 10 || w < 25 {
		t.Fatalf("%d lines of %d", len(lines), w)
	}
	for _, l := range lines {
		if len([]rune(l)) != w || strings.Trim(l, " █▀▄") != "" {
			t.Fatalf("a ragged or foreign line: %q", l)
		}
	}
}
