package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

func testState(t *testing.T) *state {
	log, _ := testLog(t)
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &state{o: Options{Version: "9.8.7", Log: log, Paths: daemon.Paths{Server: "/s"}}, started: time.Now(), ctx: context.Background(),
		ring: daemon.NewRing(), subs: map[chan daemon.Edge]struct{}{}, writes: make(chan func(*tmux.Client), 4), pipeline: "running",
		loaded: &Loaded{Config: config.Default(), Manifests: ms}}
}

// ask sends one raw line to the daemon's handler and returns every line it
// answers before closing.
func ask(t *testing.T, d *state, line string) []string {
	t.Helper()
	c, s := net.Pipe()
	go d.handle(s)
	go c.Write([]byte(line + "\n"))
	c.SetDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

func parseReply(t *testing.T, line string) daemon.Reply {
	t.Helper()
	var r daemon.Reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	return r
}

// A verb this daemon does not know is refused cleanly, naming what it
// knows: how a newer client tells an older daemon from none.
func TestHandleUnknownVerbAndGarbage(t *testing.T) {
	d := testState(t)
	r := parseReply(t, ask(t, d, `{"v":2,"verb":"notify-test"}`)[0])
	if r.OK || r.Code != daemon.CodeUnknownVerb || !strings.Contains(r.Error, "tma 9.8.7") || !strings.Contains(r.Error, "hello") {
		t.Fatalf("unknown verb: %+v", r)
	}
	if r := parseReply(t, ask(t, d, `not json`)[0]); r.OK || r.Code != daemon.CodeBadRequest {
		t.Fatalf("garbage: %+v", r)
	}
	h := parseReply(t, ask(t, d, `{"v":1,"verb":"hello"}`)[0])
	if !h.OK || h.Hello == nil || h.Hello.Version != "9.8.7" || h.Hello.Server != "/s" || len(h.Hello.Verbs) != len(daemon.Verbs) {
		t.Fatalf("hello: %+v", h)
	}
}

// status is not-ready before the first cycle, then the latest cycle as
// records: what the pipeline's last stage would have fed tma-view.
func TestHandleStatus(t *testing.T) {
	d := testState(t)
	if r := parseReply(t, ask(t, d, `{"v":1,"verb":"status"}`)[0]); r.OK || r.Code != daemon.CodeNotReady {
		t.Fatalf("before a cycle: %+v", r)
	}
	d.onCycle(&Cycle{Cycle: &record.Cycle{Head: record.Head{V: 1, Kind: record.KindCycle}, NowMS: 7, Server: "/s"},
		Rows: []*record.Row{{Head: record.Head{V: 1, Kind: record.KindRow}, NowMS: 7, Row: record.AgentRow{Pane: "%3", Agent: "claude", State: "blocked"}, Source: "hook"}}})
	lines := ask(t, d, `{"v":1,"verb":"status"}`)
	if r := parseReply(t, lines[0]); !r.OK || len(lines) != 4 {
		t.Fatalf("status: %q", lines)
	}
	rd := record.NewReader(strings.NewReader(strings.Join(lines[1:], "\n") + "\n"))
	var kinds []string
	for {
		_, h, _, err := rd.Next()
		if err != nil {
			break
		}
		kinds = append(kinds, h.Kind)
	}
	if strings.Join(kinds, " ") != "cycle row end" {
		t.Fatalf("records %v", kinds)
	}
	// The cycle went to the ring, and @tma_status's write to the writer.
	if tr := parseReply(t, ask(t, d, `{"v":1,"verb":"transitions"}`)[0]); !tr.OK || tr.Transitions.Recorded != 1 || tr.Transitions.Transitions[0].Pane != "%3" {
		t.Fatalf("transitions: %+v", tr)
	}
	if len(d.writes) != 1 || d.status != "#[range=user|tma:blocked]#[fg=red]⚑1#[norange]" {
		t.Fatalf("@tma_status: %d queued, %q", len(d.writes), d.status)
	}
	// An unchanged fleet writes nothing more.
	d.onCycle(&Cycle{Cycle: &record.Cycle{NowMS: 8}, Rows: []*record.Row{{Row: record.AgentRow{Pane: "%3", Agent: "claude", State: "blocked"}}}})
	if len(d.writes) != 1 {
		t.Fatalf("an unchanged status queued a write")
	}
}

// An event the daemon's manifests map to nothing is refused (the hook
// stamps it); a reply-lane hold is the hook's; a mapped one is acked and
// queued for the one writer.
func TestHandleEvent(t *testing.T) {
	d := testState(t)
	ev := func(agent, name, payload string) daemon.Reply {
		b, _ := json.Marshal(daemon.Request{V: 1, Verb: daemon.VerbEvent, Event: &daemon.Event{Agent: agent, Name: name, Pane: "%1", Payload: payload, NowMS: 1}})
		return parseReply(t, ask(t, d, string(b))[0])
	}
	if r := ev("nope", "Stop", "{}"); r.OK || r.Code != daemon.CodeUnmapped {
		t.Fatalf("unknown agent: %+v", r)
	}
	if r := ev("claude", "NoSuchEvent", "{}"); r.OK || r.Code != daemon.CodeUnmapped {
		t.Fatalf("unmapped event: %+v", r)
	}
	if r := ev("claude", "PermissionRequest", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`); r.OK || r.Code != daemon.CodeLane {
		t.Fatalf("a lane hold: %+v", r)
	}
	if len(d.writes) != 0 {
		t.Fatal("a refused event was queued")
	}
	if r := ev("claude", "Stop", "{}"); !r.OK || len(d.writes) != 1 {
		t.Fatalf("a mapped event: %+v, %d queued", r, len(d.writes))
	}
	var bad daemon.Reply
	b, _ := json.Marshal(daemon.Request{V: 1, Verb: daemon.VerbEvent, Event: &daemon.Event{Agent: "claude", Name: "Stop", Pane: "not-a-pane"}})
	if bad = parseReply(t, ask(t, d, string(b))[0]); bad.OK || bad.Code != daemon.CodeBadRequest {
		t.Fatalf("a bad pane: %+v", bad)
	}
}

// A subscriber gets one line per edge and is dropped when it goes.
func TestHandleSubscribe(t *testing.T) {
	d := testState(t)
	c, s := net.Pipe()
	go d.handle(s)
	go c.Write([]byte(`{"v":1,"verb":"subscribe"}` + "\n"))
	r := bufio.NewReader(c)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if l, _ := r.ReadString('\n'); !parseReply(t, l).OK {
		t.Fatalf("subscribe: %q", l)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d.mu.Lock()
		n := len(d.subs)
		d.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no subscriber registered")
		}
	}
	d.broadcast(daemon.Edge{Edge: "hook", AtMS: 5, Panes: []string{"%2"}})
	l, _ := r.ReadString('\n')
	var e daemon.Edge
	if json.Unmarshal([]byte(l), &e) != nil || e.Edge != "hook" || e.Panes[0] != "%2" {
		t.Fatalf("edge %q", l)
	}
	c.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d.mu.Lock()
		n := len(d.subs)
		d.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a gone subscriber stayed")
		}
	}
}
