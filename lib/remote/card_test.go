package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/card"
	"github.com/tmaproject/tma/lib/config"
)

// A card over a held connection: the request names the pane, the answer is
// decoded, and a refusal is the host's error frame.
func TestCard(t *testing.T) {
	p := filepath.Join(t.TempDir(), "serve")
	script := `#!/bin/sh
read -r hello
printf '%s\n' '{"schema":1,"id":"1","t":"hello","host":"box","tma_version":"1","reconcile_interval_ms":2000,"scopes":["read","act:answer"]}'
read -r req
case "$req" in
*'"t":"card"'*'"pane":"%3"'*|*'"pane":"%3"'*'"t":"card"'*)
  printf '%s\n' '{"schema":1,"id":"2","t":"card","pane":"%3","agent":"claude","state":"blocked","detail":"question","episode_ms":1,"kind":"question","lane":"screen","confidence":"wrapped","tool":null,"summary":null,"request":null,"question":"Which colour?","options":[{"label":"Red","description":"Paint it red."}],"text":"Which colour?","withheld":false}' ;;
*) printf '%s\n' '{"schema":1,"id":"2","t":"error","code":"bad-request","message":"unexpected"}' ;;
esac
read -r req
printf '%s\n' '{"schema":1,"id":"3","t":"error","code":"not-found","message":"no agent in pane %9"}'
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), config.Remote{Name: "build", Command: []string{p}}, "0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.Card(context.Background(), "%3")
	if err != nil {
		t.Fatal(err)
	}
	if got.Pane != "%3" || got.Kind != "question" || *got.Lane != "screen" || *got.Question != "Which colour?" ||
		len(got.Options) != 1 || *got.Options[0].Description != "Paint it red." || got.Withheld {
		t.Errorf("card %+v", got)
	}
	_, err = c.Card(context.Background(), "%9")
	if re, ok := err.(*RefusedError); !ok || re.Code != "not-found" {
		t.Errorf("card of no agent: %v", err)
	}
}

// A card through the poller rides the connection it holds: no new dial, and
// a refused card leaves that connection standing.
func TestPollerCard(t *testing.T) {
	p := poll([]config.Remote{{Name: "build", Command: loop(t)}}, "0", 20*time.Millisecond, 50*time.Millisecond)
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := p.Card(ctx, "build", "%3")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != "permission" || *c.Tool != "Bash" || *c.Summary != "make test" {
		t.Errorf("card %+v", c)
	}
	if _, err := p.Card(ctx, "build", "%4"); err == nil || Why(err) == "" {
		t.Errorf("card of no agent: %v", err)
	}
	if _, err := p.Card(ctx, "build", "%3"); err != nil {
		t.Errorf("after a refusal: %v", err)
	}
	if _, err := p.Card(ctx, "other", "%3"); err == nil {
		t.Error("a card of no such remote")
	}
	if n := p.Dials(0); n != 1 {
		t.Errorf("%d dials, want 1", n)
	}
}

// The preview says what the pane waits on, where that came from, the
// dialog's words and choices, and how to answer; a withheld card says why
// it has no words; a pane waiting on nothing has no preview.
func TestCardPreview(t *testing.T) {
	s := func(v string) *string { return &v }
	c := &Card{Pane: "%3", Agent: "claude", State: "blocked", Detail: s("question"), Card: card.Card{Kind: "question",
		Lane: s("screen"), Confidence: s("wrapped"), Question: s("Which colour?"), Text: s("Which colour?"),
		Options: []card.Option{{Label: "Red", Description: s("Paint it red.")}, {Label: "Green"}}}}
	want := "build:%3  claude  blocked/question\nwaits on: question · read off its screen (wrapped)\n\nWhich colour?\n\n" +
		"  1. Red\n     Paint it red.\n  2. Green\n\nanswer: tma act <action> --host build --pane %3 · Enter opens a window attached to it\n"
	if got := c.Preview("build:%3"); got != want {
		t.Errorf("preview:\n%s\nwant:\n%s", got, want)
	}
	c.Text, c.Options, c.Withheld = nil, nil, true
	if got := c.Preview("build:%3"); !strings.Contains(got, "does not hold act:answer") || strings.Contains(got, "Red") {
		t.Errorf("withheld preview:\n%s", got)
	}
	if got := (&Card{Card: card.Card{Kind: "none"}}).Preview("build:%3"); got != "" {
		t.Errorf("none preview %q", got)
	}
}
