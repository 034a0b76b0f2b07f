package notify

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func fired() *Fired {
	ctx := int64(42)
	return &Fired{Trigger: Blocked, Pane: "%5", Agent: "claude", State: "blocked", Detail: "permission",
		Session: "s-1", Locator: "api:2.0", Title: "✳ secret prompt", SinceMS: 1_000_000, TurnAtMS: 1_000_500, Context: &ctx}
}

func TestPayloadKeysAndValues(t *testing.T) {
	p := Build(fired(), 1_004_000, false, "api", "main")
	keys(t, p.JSON(), "schema agent pane state detail session locator repo branch since_ms episode_ms context_pct")
	var m map[string]any
	if err := json.Unmarshal(p.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"schema": 2.0, "agent": "claude", "pane": "%5", "state": "blocked", "detail": "permission",
		"session": "s-1", "locator": "api:2.0", "repo": "api", "branch": "main", "since_ms": 4000.0,
		"episode_ms": 1_000_500.0, "context_pct": 42.0}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("payload %v\nwant %v", m, want)
	}
	if strings.Contains(string(p.JSON()), "secret") {
		t.Errorf("the title leaked without include_title: %s", p.JSON())
	}
	// include_title puts it in all three carriers together.
	pt := Build(fired(), 1_004_000, true, "api", "main")
	keys(t, pt.JSON(), "schema agent pane state detail session locator title repo branch since_ms episode_ms context_pct")
	keys(t, pt.LogLine(9), "schema at agent pane state detail session locator title repo branch since_ms episode_ms context_pct")
	if !strings.Contains(strings.Join(pt.Env(), "\n"), "TMA_TITLE=✳ secret prompt") {
		t.Errorf("TMA_TITLE missing with include_title: %v", pt.Env())
	}
	for _, kv := range p.Env() {
		if strings.HasPrefix(kv, "TMA_TITLE=") {
			t.Errorf("TMA_TITLE set without include_title")
		}
	}
	if !strings.HasSuffix(string(p.LogLine(7)), "}\n") || !strings.HasPrefix(string(p.LogLine(7)), `{"schema":2,"at":7,`) {
		t.Errorf("log line %q", p.LogLine(7))
	}
}

// An empty value is an unset variable, never an empty one; null in JSON.
func TestPayloadEmptyValues(t *testing.T) {
	f := &Fired{Trigger: Done, Pane: "%1", Agent: "codex", State: "idle", Locator: "s:1.0"}
	p := Build(f, 10, false, "", "")
	if got := string(p.JSON()); got != `{"schema":2,"agent":"codex","pane":"%1","state":"done","detail":null,"session":null,"locator":"s:1.0","repo":null,"branch":null,"since_ms":0,"episode_ms":0,"context_pct":null}` {
		t.Errorf("payload %s", got)
	}
	got := strings.Join(p.Env(), " ")
	if got != "TMA_AGENT=codex TMA_PANE=%1 TMA_STATE=done TMA_LOCATOR=s:1.0 TMA_SINCE_MS=0 TMA_EPISODE_MS=0" {
		t.Errorf("env %s", got)
	}
}

func TestSequences(t *testing.T) {
	if got := TTYBytes(true, true, true, "claude", "blocked"); got != "\a\x1bPtmux;\x1b\x1b]9;claude blocked\a\x1b\\\x1bPtmux;\x1b\x1b]777;notify;claude;blocked\a\x1b\\" {
		t.Errorf("tty bytes %q", got)
	}
	if got := TTYBytes(false, false, false, "claude", "blocked"); got != "" {
		t.Errorf("nothing on: %q", got)
	}
	// An agent name cannot end the sequence early.
	if got := OSC9("a\x07b;c\x1b", "blocked"); got != "\x1b]9;abc blocked\a" {
		t.Errorf("osc9 %q", got)
	}
}

func TestMessageAndDisplayLines(t *testing.T) {
	f := fired()
	f.Title = "#{pane_id} #(rm -rf ~) it's %d"
	m := Message(f, Blocked)
	if m != "tma: claude blocked/permission in api:2.0 — #{pane_id} #(rm -rf ~) it's %d" {
		t.Errorf("message %q", m)
	}
	lines := DisplayLines([]string{"/dev/pts/3", "client-99", "", "/dev/pts/4"}, m)
	want := []string{
		`display-message -c '/dev/pts/3' 'tma: claude blocked/permission in api:2.0 — ##{pane_id} ##(rm -rf ~) it'\''s %%d'`,
		`display-message -c '/dev/pts/4' 'tma: claude blocked/permission in api:2.0 — ##{pane_id} ##(rm -rf ~) it'\''s %%d'`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("lines %q", lines)
	}
}

func keys(t *testing.T, doc []byte, want string) {
	t.Helper()
	if got := testkit.KeyOrder(t, string(doc)); got != want {
		t.Errorf("keys %q\nwant %q", got, want)
	}
}

// With [serve.http] public_url the payload's last key is url, the pane's
// card on the web face; without it there is no url key at all.
func TestPayloadURL(t *testing.T) {
	p := Build(fired(), 1_004_000, false, "api", "main")
	p.URL = CardURL("https://box.tail1234.ts.net/", "%12")
	keys(t, p.JSON(), "schema agent pane state detail session locator repo branch since_ms episode_ms context_pct url")
	if !strings.Contains(string(p.JSON()), `"url":"https://box.tail1234.ts.net/#pane=%2512"`) {
		t.Errorf("url: %s", p.JSON())
	}
	if !strings.Contains(strings.Join(p.Env(), "\n"), "TMA_URL=https://box.tail1234.ts.net/#pane=%2512") {
		t.Errorf("env: %v", p.Env())
	}
	if CardURL("", "%1") != "" {
		t.Error("a card URL without public_url")
	}
}
