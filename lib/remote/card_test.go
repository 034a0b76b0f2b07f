package remote

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
