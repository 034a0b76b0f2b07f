package integration

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A broker error on a slotted dispatch reads the same first time and on
// replay: fired-unknown both (D-127, D-129), the replay only cached.
func TestActSlotErrorReplaysAsReported(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	real := e.s.Bin
	if !filepath.IsAbs(real) {
		p, err := exec.LookPath(real)
		if err != nil {
			t.Fatal(err)
		}
		real = p
	}
	wrap := filepath.Join(t.TempDir(), "tmux")
	// tmux refuses every send-keys, in argv or in a source-file batch.
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = send-keys ] && { echo 'refused by the test' >&2; exit 1; }; done\n" +
		"case \" $* \" in *\" source-file \"*) in=$(cat); case $in in *send-keys*) echo 'refused by the test' >&2; exit 1 ;; esac\n" +
		"  printf '%s\\n' \"$in\" | exec '" + real + "' \"$@\" ;; esac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMA_TMUX_BIN", wrap)
	first, _, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s-err")
	if code != 1 || first.Outcome != "error" || first.reason() != "fired-unknown" || *first.Cached {
		t.Fatalf("first: exit %d %+v", code, first)
	}
	again, _, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s-err")
	if code != 1 || again.Outcome != "error" || again.reason() != first.reason() || !*again.Cached {
		t.Errorf("replay: exit %d %+v", code, again)
	}
}

// TestActSlotUnsentFreesTheSlot: an answer over OpenCode's API whose
// connect is refused provably sent nothing, so a slotted approve reports
// it as an unslotted one does (error, reason null) and frees the slot,
// which a retry fires once the server is up (issue 27 item 23: it read
// fired-unknown, and the slot's receipt blocked the retry).
func TestActSlotUnsentFreesTheSlot(t *testing.T) {
	oc := &openCode{pending: map[string]bool{"per_1": true}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there yet
	e := newEnv(t, "")
	a, keys := e.s.StartRecordingAgent("opencode", claudeIdle)
	e.fire(a.Pane, "opencode", "session-start", `{"hook_event_name":"session-start","source":"session.created","session_id":"ses_1","tma_api_endpoint":"`+endpoint+`"}`)
	e.askPermission(a.Pane, "per_1", endpoint)

	r, errs, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s-2")
	if code != 1 || r.Outcome != "error" || r.Reason != nil || *r.Cached || !strings.Contains(errs, "does not answer") {
		t.Fatalf("a refused connect: exit %d %+v %s", code, r, errs)
	}
	e.nothingSent(keys)
	if out, _, _ := e.tma("receipts", "--slot", "s-2"); out != "" {
		t.Errorf("the slot holds a receipt for nothing sent: %q", out)
	}

	ln, err = net.Listen("tcp", strings.TrimPrefix(endpoint, "http://"))
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: oc}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	r, errs, code = e.slotJSON("approve", "--pane", a.Pane, "--slot", "s-2")
	if code != 0 || r.Outcome != "replied" || *r.Cached || oc.answers() != "per_1 once" {
		t.Fatalf("the retry on the freed slot: exit %d %+v %s (server got %q)", code, r, errs, oc.answers())
	}
}
