package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/card"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/record"
)

const phoneID = "SHA256:phone"

// harness is one connection over pipes, with a fake host that records what
// reached the broker.
type harness struct {
	t       *testing.T
	store   string
	in      *io.PipeWriter
	out     *bufio.Scanner
	code    chan int
	mu      sync.Mutex
	fired   []Dispatch
	rows    []record.AgentRow
	cycles  int
	windows []WindowRequest
	cards   map[string]card.Card
}

func pair(t *testing.T, path string, scopes ...string) {
	t.Helper()
	err := device.Update(path, func(s *device.Store) error {
		s.Devices = nil
		if scopes != nil {
			s.Devices = append(s.Devices, device.Device{Name: "phone", ID: phoneID, Scopes: scopes})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, scopes []string, interval int) *harness {
	t.Helper()
	h := &harness{t: t, store: filepath.Join(t.TempDir(), device.FileName), code: make(chan int, 1)}
	if scopes != nil {
		pair(t, h.store, scopes...)
	}
	c := &Conn{
		DeviceID: phoneID, DevicesPath: h.store, Host: "studio", Version: "9.9", IntervalMS: interval,
		Cycle: func(context.Context) (*Snapshot, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.cycles++
			return &Snapshot{AtMS: 5, Server: "/tmp/s", Rows: append([]record.AgentRow(nil), h.rows...)}, nil
		},
		ActionKind: func(name string) (string, bool) {
			switch name {
			case "approve", "deny", "steer":
				return "keys", true
			case "always":
				return "exec", true // a user's exec action under a table name
			}
			return "", false
		},
		Fire: func(_ context.Context, d Dispatch) (Receipt, error) {
			h.mu.Lock()
			h.fired = append(h.fired, d)
			h.mu.Unlock()
			return Receipt{Outcome: "sent"}, nil
		},
		Receipts: func(context.Context, string) (json.RawMessage, error) {
			return json.RawMessage(`[{"slot":"a","device":"phone"},{"slot":"b","device":"laptop"},{"slot":"c","device":null}]`), nil
		},
		Window: func(_ context.Context, w WindowRequest) ([]byte, *Refusal, error) {
			h.mu.Lock()
			h.windows = append(h.windows, w)
			h.mu.Unlock()
			switch {
			case w.Pane == "%9":
				return nil, &Refusal{Code: "no-transcript", Message: "no agent"}, nil
			case w.Before == "bad":
				return nil, &Refusal{Code: "cursor-invalid", Message: "not a cursor"}, nil
			case !w.Headers || w.Last > 4:
				// Too big for one frame until it is headers and 4 events.
				return []byte(`{"schema":1,"pane":"` + w.Pane + `","pad":"` + strings.Repeat("x", MaxWindowFrame) + `"}`), nil, nil
			}
			return []byte(fmt.Sprintf(`{"schema":1,"pane":%q,"last":%d}`, w.Pane, w.Last)), nil, nil
		},
		Card: func(_ context.Context, pane string) (*PaneCard, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			for _, r := range h.rows {
				if r.Pane == pane {
					return &PaneCard{Row: r, Card: h.cards[pane]}, nil
				}
			}
			return nil, nil
		},
		Now: func() int64 { return 7 },
		Log: func(string, ...any) {},
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h.in, h.out = inW, bufio.NewScanner(outR)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	go func() {
		code := c.Serve(ctx, inR, outW)
		outW.Close()
		h.code <- code
	}()
	return h
}

func (h *harness) send(line string) {
	h.t.Helper()
	go func() { _, _ = io.WriteString(h.in, line+"\n") }()
}

// next reads one frame, failing after a generous wait.
func (h *harness) next() map[string]any {
	h.t.Helper()
	got := make(chan string, 1)
	go func() {
		if h.out.Scan() {
			got <- h.out.Text()
		} else {
			got <- ""
		}
	}()
	select {
	case l := <-got:
		if l == "" {
			h.t.Fatal("the connection ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			h.t.Fatalf("not a frame: %q", l)
		}
		m["_raw"] = l
		return m
	case <-time.After(10 * time.Second):
		h.t.Fatal("no frame in 10s")
	}
	return nil
}

func (h *harness) exit() int {
	h.t.Helper()
	select {
	case c := <-h.code:
		return c
	case <-time.After(10 * time.Second):
		h.t.Fatal("the connection did not end")
	}
	return -1
}

func TestHello(t *testing.T) {
	h := start(t, device.DefaultScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello","app":"probe","app_version":"0","device":"SHA256:someone-else"}`)
	f := h.next()
	want := `{"schema":1,"id":"1","t":"hello","host":"studio","tma_version":"9.9","reconcile_interval_ms":60000,"scopes":["read","act:answer","act:steer"]}`
	if f["_raw"] != want {
		t.Errorf("hello:\n got %s\nwant %s", f["_raw"], want)
	}
	h.in.Close()
	if c := h.exit(); c != ExitOK {
		t.Errorf("EOF exit %d, want 0", c)
	}
}

func TestUnpaired(t *testing.T) {
	h := start(t, nil, 60000)
	f := h.next()
	want := `{"schema":1,"id":"0","t":"error","code":"scope-denied","message":"this device is not paired with this host; run ` + "`tma device pair`" + ` on the host"}`
	if f["_raw"] != want {
		t.Errorf("got %s\nwant %s", f["_raw"], want)
	}
	if c := h.exit(); c != ExitRefused {
		t.Errorf("exit %d, want 2", c)
	}
}

// TestRefuseAndFail: a refusal before any request is exit 2, a host that
// cannot start (its device store torn) exit 1; each writes one frame, id 0.
func TestRefuseAndFail(t *testing.T) {
	var b bytes.Buffer
	if c := Refuse(&b, CodeScopeDenied, "no"); c != ExitRefused || b.String() != `{"schema":1,"id":"0","t":"error","code":"scope-denied","message":"no"}`+"\n" {
		t.Errorf("Refuse: exit %d, %q", c, b.String())
	}
	b.Reset()
	if c := Fail(&b, CodeInternal, "torn"); c != ExitFail || b.String() != `{"schema":1,"id":"0","t":"error","code":"internal","message":"torn"}`+"\n" {
		t.Errorf("Fail: exit %d, %q", c, b.String())
	}
}

func TestHelloFirstAndBadFrames(t *testing.T) {
	h := start(t, device.DefaultScopes, 60000)
	for _, c := range []struct{ line, id, code string }{
		{`{"schema":1,"id":"a","t":"snapshot"}`, "a", CodeBadRequest},
		{`not json`, "0", CodeBadRequest},
		{`{"schema":2,"id":"b","t":"hello"}`, "b", CodeUnsupportedSchema},
		{`{"schema":1,"id":3,"t":"hello"}`, "0", CodeBadRequest},
	} {
		h.send(c.line)
		f := h.next()
		if f["t"] != "error" || f["id"] != c.id || f["code"] != c.code {
			t.Errorf("%s -> %s, want error %s id %s", c.line, f["_raw"], c.code, c.id)
		}
	}
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.send(`{"schema":1,"id":"2","t":"mute"}`)
	if f := h.next(); f["code"] != CodeUnsupported {
		t.Errorf("mute -> %s", f["_raw"])
	}
}

func TestSnapshotIsTitleFree(t *testing.T) {
	h := start(t, device.OnlyScopes, 60000)
	h.rows = []record.AgentRow{{Pane: "%1", Agent: "claude", State: "blocked", Title: "secret title", Locator: "s:0.0", Host: "studio", Server: "/tmp/s"}}
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.send(`{"schema":1,"id":"2","t":"snapshot"}`)
	f := h.next()
	raw := f["_raw"].(string)
	if f["t"] != "snapshot" || strings.Contains(raw, "title") || !strings.Contains(raw, `"pane":"%1"`) || !strings.Contains(raw, `"host":"studio"`) {
		t.Errorf("snapshot %s", raw)
	}
}

// Every refusal happens before the broker is called: nothing is fired.
func TestDispatchScopes(t *testing.T) {
	h := start(t, device.OnlyScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	for i, a := range []string{"approve", "steer", "compact", "mine", "always"} {
		h.send(fmt.Sprintf(`{"schema":1,"id":"d%d","t":"dispatch","action":%q,"pane":"%%1","slot":"s%d"}`, i, a, i))
		f := h.next()
		want := fmt.Sprintf(`{"schema":1,"id":"d%d","t":"receipt","slot":"s%d","pane":"%%1","action":%q,"device":"phone","outcome":"refused","exit_code":4,"reason":"scope-denied","cached":false}`, i, i, a)
		if f["_raw"] != want {
			t.Errorf("%s:\n got %s\nwant %s", a, f["_raw"], want)
		}
	}
	// Widened on the host: approve now reaches the broker, steer still not;
	// an exec action is refused at every scope, act:always included.
	pair(t, h.store, device.ScopeRead, device.ScopeAnswer, device.ScopeAlways)
	for _, c := range []struct{ action, outcome string }{{"approve", "sent"}, {"steer", "refused"}, {"always", "refused"}, {"compact", "refused"}} {
		h.send(fmt.Sprintf(`{"schema":1,"id":"x","t":"dispatch","action":%q,"pane":"%%2"}`, c.action))
		if f := h.next(); f["outcome"] != c.outcome {
			t.Errorf("%s -> %s, want %s", c.action, f["_raw"], c.outcome)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.fired) != 1 || h.fired[0].Action != "approve" || h.fired[0].Pane != "%2" || h.fired[0].Device != "phone" || !strings.HasPrefix(h.fired[0].Slot, "serve-") {
		t.Errorf("fired %+v, want one approve on %%2 with a generated slot", h.fired)
	}
}

func TestBadDispatch(t *testing.T) {
	h := start(t, device.DefaultScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	for _, l := range []string{
		`{"schema":1,"id":"2","t":"dispatch","action":"approve","pane":"5"}`,
		`{"schema":1,"id":"2","t":"dispatch","action":"Approve; rm","pane":"%5"}`,
		`{"schema":1,"id":"2","t":"dispatch","action":"approve","pane":"%5","slot":"a b"}`,
	} {
		h.send(l)
		if f := h.next(); f["code"] != CodeBadRequest {
			t.Errorf("%s -> %s", l, f["_raw"])
		}
	}
}

func TestRevokeEndsTheConnection(t *testing.T) {
	h := start(t, device.DefaultScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	pair(t, h.store) // revoked
	h.send(`{"schema":1,"id":"2","t":"snapshot"}`)
	f := h.next()
	if f["t"] != "error" || f["code"] != CodeScopeDenied || f["id"] != "2" {
		t.Errorf("after revoke: %s", f["_raw"])
	}
	if c := h.exit(); c != ExitRefused {
		t.Errorf("exit %d, want 2", c)
	}
}

// A revoke reaches a connection that sends nothing: the store is re-read
// at the publish cadence.
func TestRevokeIdle(t *testing.T) {
	h := start(t, device.DefaultScopes, 50)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	pair(t, h.store)
	if f := h.next(); f["code"] != CodeScopeDenied {
		t.Errorf("idle revoke: %s", f["_raw"])
	}
	if c := h.exit(); c != ExitRefused {
		t.Errorf("exit %d", c)
	}
}

func TestSubscribeEdges(t *testing.T) {
	h := start(t, device.DefaultScopes, 50)
	h.rows = []record.AgentRow{{Pane: "%1", State: "working", Title: "t"}}
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.send(`{"schema":1,"id":"s","t":"subscribe"}`)
	if f := h.next(); f["t"] != "ack" || f["id"] != "s" {
		t.Fatalf("subscribe: %s", f["_raw"])
	}
	// The baseline cycle runs after the ack: change the rows only once it
	// has read them.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		h.mu.Lock()
		n := h.cycles
		h.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no baseline cycle")
		}
	}
	h.mu.Lock()
	h.rows = []record.AgentRow{{Pane: "%1", State: "blocked", Title: "t"}, {Pane: "%2", State: "idle"}}
	h.mu.Unlock()
	got := map[string]string{}
	for range 2 {
		f := h.next()
		if f["t"] != "edge" || f["id"] != "s" || strings.Contains(f["_raw"].(string), "title") {
			t.Fatalf("edge: %s", f["_raw"])
		}
		got[f["pane"].(string)] = fmt.Sprintf("%v>%v", f["from"], f["to"])
	}
	if got["%1"] != "working>blocked" || got["%2"] != "<nil>>idle" {
		t.Errorf("edges %v", got)
	}
	h.mu.Lock()
	h.rows = []record.AgentRow{{Pane: "%2", State: "idle"}}
	h.mu.Unlock()
	if f := h.next(); f["pane"] != "%1" || f["to"] != nil || f["row"] != nil {
		t.Errorf("gone edge: %s", f["_raw"])
	}
}

func TestClaim(t *testing.T) {
	dir := t.TempDir()
	var rels []func()
	for range 2 {
		rel, ok, err := Claim(dir, 2)
		if err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		rels = append(rels, rel)
	}
	if _, ok, _ := Claim(dir, 2); ok {
		t.Fatal("a third claim of two slots succeeded")
	}
	rels[0]()
	if rel, ok, _ := Claim(dir, 2); !ok {
		t.Fatal("a freed slot was not reusable")
	} else {
		rel()
	}
	rels[1]()
}

func TestScopeTable(t *testing.T) {
	for a, want := range map[string]string{"approve": device.ScopeAnswer, "deny": device.ScopeAnswer, "dismiss": device.ScopeAnswer, "steer": device.ScopeSteer, "interrupt": device.ScopeSteer} {
		if s, ok := ScopeFor(a); !ok || s != want {
			t.Errorf("ScopeFor(%s) = %s %v", a, s, ok)
		}
	}
	if _, ok := ScopeFor("compact"); ok {
		t.Error("compact is in the remote table")
	}
}

func TestWindow(t *testing.T) {
	h := start(t, device.DefaultScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.send(`{"schema":1,"id":"2","t":"window","pane":"%1","last":16}`)
	f := h.next()
	if f["_raw"] != `{"schema":1,"id":"2","t":"window","document":{"schema":1,"pane":"%1","last":4}}` {
		t.Errorf("window within the frame budget: %s", f["_raw"])
	}
	h.mu.Lock()
	if len(h.windows) != 4 || h.windows[1].Headers != true || h.windows[1].Last != 16 || h.windows[2].Last != 8 {
		t.Errorf("reads %+v: bodies dropped first, then halved", h.windows)
	}
	h.mu.Unlock()
	for _, c := range []struct{ line, code string }{
		{`{"schema":1,"id":"3","t":"window","pane":"%9"}`, CodeNotFound},
		{`{"schema":1,"id":"3","t":"window","pane":"%1","before":"bad"}`, CodeCursorInvalid},
		{`{"schema":1,"id":"3","t":"window","pane":"1"}`, CodeBadRequest},
		{`{"schema":1,"id":"3","t":"window","pane":"%1","last":1001}`, CodeBadRequest},
	} {
		h.send(c.line)
		if f := h.next(); f["t"] != "error" || f["code"] != c.code {
			t.Errorf("%s -> %s, want %s", c.line, f["_raw"], c.code)
		}
	}
}

// A read-only device reads no transcript bodies and no other device's
// receipts (issue 28 item 5).
func TestReadOnlyGetsNoContent(t *testing.T) {
	h := start(t, device.OnlyScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.send(`{"schema":1,"id":"2","t":"window","pane":"%1","last":4}`)
	h.next()
	h.mu.Lock()
	if len(h.windows) != 1 || !h.windows[0].Headers {
		t.Errorf("reads %+v: a read-only device's first read is headers only", h.windows)
	}
	h.mu.Unlock()
	h.send(`{"schema":1,"id":"3","t":"receipts"}`)
	if f := h.next(); f["_raw"] != `{"schema":1,"id":"3","t":"receipts","receipts":[{"device":"phone","slot":"a"}]}` {
		t.Errorf("read-only receipts: %s", f["_raw"])
	}
	pair(t, h.store, device.DefaultScopes...)
	h.send(`{"schema":1,"id":"4","t":"receipts"}`)
	if f := h.next(); !strings.Contains(f["_raw"].(string), `"laptop"`) {
		t.Errorf("answering device's receipts: %s", f["_raw"])
	}
}

// A dispatch carries the option and the episode it was aimed at through to
// the broker.
func TestDispatchCarriesArgAndEpisode(t *testing.T) {
	h := start(t, device.DefaultScopes, 60000)
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.send(`{"schema":1,"id":"2","t":"dispatch","action":"answer","pane":"%1","slot":"q1","arg":"2","expect_episode_ms":1234}`)
	if f := h.next(); f["outcome"] != "sent" {
		t.Fatalf("answer: %s", f["_raw"])
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.fired) != 1 || h.fired[0].Arg == nil || *h.fired[0].Arg != "2" || h.fired[0].ExpectEpisodeMS == nil || *h.fired[0].ExpectEpisodeMS != 1234 {
		t.Errorf("fired %+v", h.fired)
	}
}
