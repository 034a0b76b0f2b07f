package serve

import (
	"encoding/json"
	"testing"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/testkit"
)

// standIn is a serve that answers hellos and snapshots with one row.
func standIn(t *testing.T) string {
	return testkit.ServeStandIn(t,
		`*'"t":"hello"'*) printf '{"schema":1,"id":"%s","t":"hello","host":"box"}\n' "$id"`,
		`*'"t":"snapshot"'*) printf '{"schema":1,"id":"%s","t":"snapshot","at_ms":7,"rows":[{"pane":"%%3","agent":"claude","state":"idle","since":5,"locator":"w:1.0","server":"/s","host":"box"}],"panes":["%%3"]}\n' "$id"`,
	)
}

// remote answers for an entry its config has as the asker does, over one
// held connection; an entry it lacks, or has otherwise, is refused so the
// asker dials; a remote that fails is an OK reply carrying its one line.
func TestHandleRemote(t *testing.T) {
	d := testState(t)
	d.pool = remote.NewPool("9.8.7", remote.PoolIdle)
	defer d.pool.Close()
	cmd := []string{standIn(t)}
	tmo := 20000
	short := 20000
	d.loaded.Config = &config.Config{Remotes: []config.Remote{
		{Name: "build", Command: cmd, TimeoutMS: &tmo},
		{Name: "gone", Command: []string{"true"}, TimeoutMS: &short},
	}}
	req := func(name string, command []string, ms int64) string {
		b, _ := json.Marshal(daemon.Request{V: 1, Verb: daemon.VerbRemote, Remote: &daemon.RemoteAsk{Name: name, Command: command, TimeoutMS: ms}})
		return string(b)
	}
	for i := 0; i < 2; i++ {
		r := parseReply(t, ask(t, d, req("build", cmd, 20000))[0])
		if !r.OK || r.Remote == nil || r.Remote.Error != "" || len(r.Remote.Rows) != 1 || r.Remote.Rows[0].Host != "build" || r.Remote.Rows[0].Pane != "%3" {
			t.Fatalf("ask %d: %+v %+v", i, r, r.Remote)
		}
	}
	if n := d.pool.Dials("build"); n != 1 {
		t.Errorf("two asks dialled %d times", n)
	}
	for _, bad := range []string{req("nosuch", cmd, 20000), req("build", []string{"ssh", "elsewhere"}, 20000), req("build", cmd, 2000)} {
		if r := parseReply(t, ask(t, d, bad)[0]); r.OK || r.Code != daemon.CodeUnknownRemote {
			t.Errorf("%s: %+v", bad, r)
		}
	}
	if r := parseReply(t, ask(t, d, `{"v":1,"verb":"remote"}`)[0]); r.OK || r.Code != daemon.CodeBadRequest {
		t.Errorf("no remote named: %+v", r)
	}
	r := parseReply(t, ask(t, d, req("gone", []string{"true"}, 20000))[0])
	if !r.OK || r.Remote == nil || r.Remote.Error != "the connection ended before a snapshot" || r.Remote.Rows != nil {
		t.Errorf("a remote that ends: %+v %+v", r, r.Remote)
	}
}
