package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/card"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/record"
)

func sp(s string) *string { return &s }

func cardHost(t *testing.T, scopes []string) *harness {
	h := start(t, scopes, 60000)
	h.rows = []record.AgentRow{
		{Pane: "%1", Agent: "claude", State: "blocked", Detail: sp("permission"), Title: "secret title"},
		{Pane: "%2", Agent: "pi", State: "blocked", Detail: sp("question")},
	}
	h.cards = map[string]card.Card{
		"%1": {Kind: card.KindPermission, Lane: sp(card.LaneHook), Confidence: sp(card.Exact), Tool: sp("Bash"),
			Summary: sp("touch probe.txt"), Request: sp("0123456789abcdef"), Options: []card.Option{}},
		"%2": {Kind: card.KindQuestion, Lane: sp(card.LaneScreen), Confidence: sp(card.Wrapped), Question: sp("Which colour?"),
			Options: []card.Option{{Label: "Red"}, {Label: "Green"}}, Text: sp("Which colour?")},
	}
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	return h
}

func TestCard(t *testing.T) {
	h := cardHost(t, device.DefaultScopes)
	h.send(`{"schema":1,"id":"c1","t":"card","pane":"%1"}`)
	want := `{"schema":1,"id":"c1","t":"card","pane":"%1","agent":"claude","state":"blocked","detail":"permission","episode_ms":null,` +
		`"kind":"permission","lane":"hook","confidence":"exact","tool":"Bash","summary":"touch probe.txt","request":"0123456789abcdef",` +
		`"question":null,"options":[],"text":null,"withheld":false}`
	if f := h.next(); f["_raw"] != want {
		t.Errorf("hook card:\n got %s\nwant %s", f["_raw"], want)
	}
	h.send(`{"schema":1,"id":"c2","t":"card","pane":"%2"}`)
	f := h.next()
	raw := f["_raw"].(string)
	if f["kind"] != "question" || f["lane"] != "screen" || f["confidence"] != "wrapped" || f["question"] != "Which colour?" ||
		!strings.Contains(raw, `"options":[{"label":"Red","description":null},{"label":"Green","description":null}]`) || f["withheld"] != false {
		t.Errorf("screen card %s", raw)
	}
	for _, c := range []struct{ line, code string }{
		{`{"schema":1,"id":"c3","t":"card","pane":"%7"}`, CodeNotFound},
		{`{"schema":1,"id":"c4","t":"card","pane":"7"}`, CodeBadRequest},
		{`{"schema":1,"id":"c5","t":"card"}`, CodeBadRequest},
	} {
		h.send(c.line)
		if f := h.next(); f["t"] != "error" || f["code"] != c.code {
			t.Errorf("%s -> %s, want %s", c.line, f["_raw"], c.code)
		}
	}
}

// The dialog's words are screen content: a device that cannot answer gets
// the card's shape and withheld, never the text; the stamps' tool and
// summary are the row's own keys and stay.
func TestCardWithheldWithoutAnswer(t *testing.T) {
	h := cardHost(t, device.OnlyScopes)
	h.send(`{"schema":1,"id":"c","t":"card","pane":"%2"}`)
	f := h.next()
	raw := f["_raw"].(string)
	if f["withheld"] != true || f["question"] != nil || f["text"] != nil || strings.Contains(raw, "colour") || f["kind"] != "question" || f["lane"] != "screen" {
		t.Errorf("read-only screen card %s", raw)
	}
	h.send(`{"schema":1,"id":"c","t":"card","pane":"%1"}`)
	if f := h.next(); f["withheld"] != false || f["tool"] != "Bash" || f["summary"] != "touch probe.txt" {
		t.Errorf("read-only hook card %s", f["_raw"])
	}
}

func TestCardAndEventNeedRead(t *testing.T) {
	h := cardHost(t, []string{device.ScopeAnswer})
	for _, l := range []string{`{"schema":1,"id":"c","t":"card","pane":"%1"}`, `{"schema":1,"id":"e","t":"event"}`} {
		h.send(l)
		if f := h.next(); f["code"] != CodeScopeDenied {
			t.Errorf("%s -> %s", l, f["_raw"])
		}
	}
}

// An event is a pane coming to want the user (attention rising, unmuted),
// after a silent baseline; a pane already wanting it, a muted one and a
// class move without attention send none.
func TestEvents(t *testing.T) {
	h := start(t, device.DefaultScopes, 100)
	h.rows = []record.AgentRow{
		{Pane: "%1", Agent: "claude", State: "working"},
		{Pane: "%2", Agent: "codex", State: "blocked", Attention: true},
		{Pane: "%3", Agent: "pi", State: "working"},
	}
	h.send(`{"schema":1,"id":"1","t":"hello"}`)
	h.next()
	h.mu.Lock()
	before := h.cycles
	h.mu.Unlock()
	h.send(`{"schema":1,"id":"ev","t":"event"}`)
	if f := h.next(); f["t"] != "ack" || f["id"] != "ev" {
		t.Fatalf("event -> %s", f["_raw"])
	}
	// The baseline is the cycle after the ack: the change comes after it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		h.mu.Lock()
		n := h.cycles
		h.mu.Unlock()
		if n > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no baseline cycle in 10s")
		}
	}
	h.mu.Lock()
	h.rows = []record.AgentRow{
		{Pane: "%1", Agent: "claude", State: "blocked", Detail: sp("permission"), Attention: true, Title: "secret title", Locator: "s:1.0"},
		{Pane: "%2", Agent: "codex", State: "blocked", Attention: true},
		{Pane: "%3", Agent: "pi", State: "blocked", Attention: true, Muted: true},
	}
	h.mu.Unlock()
	f := h.next()
	raw := f["_raw"].(string)
	want := `{"schema":1,"id":"ev","t":"event","pane":"%1","agent":"claude","state":"blocked","detail":"permission","done":false,` +
		`"session":null,"locator":"s:1.0","repo":null,"branch":null,"since_ms":null,"episode_ms":null,"context_pct":null,"at_ms":5}`
	if raw != want {
		t.Errorf("event:\n got %s\nwant %s", raw, want)
	}
	// The turn ends: blocked to done, attention held; an event again.
	h.mu.Lock()
	h.rows[0].State, h.rows[0].Detail, h.rows[0].Done = "idle", nil, true
	h.mu.Unlock()
	if f := h.next(); f["pane"] != "%1" || f["done"] != true || f["state"] != "idle" {
		t.Errorf("done event %s", f["_raw"])
	}
	h.send(`{"schema":1,"id":"u","t":"unsubscribe"}`)
	if f := h.next(); f["t"] != "ack" {
		t.Errorf("unsubscribe -> %s", f["_raw"])
	}
}
