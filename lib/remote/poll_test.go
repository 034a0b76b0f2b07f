package remote

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/testkit"
)

// loop is a stand-in serve that answers every hello and snapshot on one
// connection, as the real one does.
func loop(t *testing.T) []string {
	return []string{testkit.ServeStandIn(t,
		`*'"t":"hello"'*) printf '{"schema":1,"id":"%s","t":"hello","host":"box","reconcile_interval_ms":10}\n' "$id"`,
		`*'"pane":"%3"'*'"t":"card"'*) printf '{"schema":1,"id":"%s","t":"card","pane":"%%3","agent":"claude","state":"blocked","detail":"permission","kind":"permission","lane":"hook","confidence":"exact","tool":"Bash","summary":"make test","request":null,"question":null,"options":[],"text":null,"withheld":false}\n' "$id"`,
		`*'"t":"card"'*) printf '{"schema":1,"id":"%s","t":"error","code":"not-found","message":"no agent"}\n' "$id"`,
		`*'"t":"snapshot"'*) printf '{"schema":1,"id":"%s","t":"snapshot","at_ms":7,"rows":[{"pane":"%%3","agent":"claude","state":"idle","since":5,"locator":"w:1.0","attention":false,"done":false,"server":"/s","host":"box"}],"panes":["%%3"]}\n' "$id"`,
	)}
}

// A held connection answers snapshot after snapshot on one dial; a hung
// remote is pending, then unreachable at its timeout, and is dialled
// again after the backoff; neither waits on the other.
func TestPoller(t *testing.T) {
	rs := []config.Remote{
		{Name: "build", Command: loop(t)},
		{Name: "dead", Command: []string{"sleep", "600"}, TimeoutMS: ms(200)},
	}
	p := poll(rs, "0", 20*time.Millisecond, 50*time.Millisecond)
	defer p.Close()
	sts := p.States()
	if !sts[0].Pending && sts[0].Rows == nil {
		t.Errorf("before any answer: %+v", sts[0])
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		sts = p.States()
		if sts[0].Rows != nil && sts[1].Err != nil && p.Dials(1) >= 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(sts[0].Rows) != 1 || sts[0].Rows[0].Host != "build" || sts[0].Rows[0].Pane != "%3" || sts[0].AtMS != 7 || sts[0].Err != nil {
		t.Errorf("build: %+v", sts[0])
	}
	var te *TimeoutError
	if !errors.As(sts[1].Err, &te) || Why(sts[1].Err) != "unreachable (timeout 200ms)" || sts[1].Rows != nil {
		t.Errorf("dead: %+v (%v)", sts[1], sts[1].Err)
	}
	if p.Dials(1) < 2 {
		t.Errorf("the hung remote was not dialled again (%d dials)", p.Dials(1))
	}
	// Many snapshots later, still the one dial.
	time.Sleep(200 * time.Millisecond)
	if d := p.Dials(0); d != 1 {
		t.Errorf("the answering remote was dialled %d times", d)
	}
}

func TestSettled(t *testing.T) {
	p := Poll([]config.Remote{{Name: "b", Command: loop(t)}, {Name: "gone", Command: []string{filepath.Join(t.TempDir(), "nosuch")}}}, "0", time.Second)
	defer p.Close()
	sts := p.Settled(20 * time.Second)
	if sts[0].Pending || len(sts[0].Rows) != 1 {
		t.Errorf("b: %+v", sts[0])
	}
	if sts[1].Pending || sts[1].Err == nil || !strings.HasPrefix(Why(sts[1].Err), "failed (") {
		t.Errorf("gone: %+v", sts[1])
	}
}

func TestWhy(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&TimeoutError{2 * time.Second}, "unreachable (timeout 2s)"},
		{&RefusedError{"scope-denied", "device laptop is not paired"}, "refused (scope-denied: device laptop is not paired)"},
		{errEnded, "unreachable (the connection ended)"},
		{errors.New("not a serve frame: hi"), "failed (not a serve frame: hi)"},
	}
	for _, c := range cases {
		if got := Why(c.err); got != c.want {
			t.Errorf("Why(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	res := Snapshot(t.Context(), config.Remote{Name: "b", Command: stand(t, "exit 0")}, "0")
	if got := Why(res.Err); got != "unreachable (the connection ended before a snapshot)" {
		t.Errorf("an early EOF: %q", got)
	}
}

func TestAttachArgv(t *testing.T) {
	cases := []struct {
		name   string
		r      config.Remote
		server string
		want   string
	}{
		{"attach set", config.Remote{Name: "b", Command: []string{"ssh", "-T", "b"}, Attach: []string{"ssh", "-t", "b-shell", "tma", "attach", "--pane"}}, "/s", "ssh -t b-shell tma attach --pane %3"},
		{"forced command", config.Remote{Name: "b", Command: []string{"ssh", "-T", "-o", "BatchMode=yes", "build"}}, "/tmp/tmux-1000/default", "ssh -t -o BatchMode=yes build tma -S /tmp/tmux-1000/default attach --pane %3"},
		{"serve in the command", config.Remote{Name: "b", Command: []string{"/usr/bin/ssh", "-Tp", "2222", "-i", "k", "u@h", "/opt/tma", "serve", "--stdio", "--device", "laptop"}}, "/s x", "/usr/bin/ssh -t -p 2222 -i k u@h /opt/tma -S '/s x' attach --pane %3"},
		{"its own server", config.Remote{Name: "b", Command: []string{"ssh", "-nT", "h", "tma", "-S", "/sock", "serve", "--stdio"}}, "/other", "ssh -t h tma -S /sock attach --pane %3"},
		{"combined flags", config.Remote{Name: "b", Command: []string{"ssh", "-qTC", "-l", "me", "--", "h"}}, "", "ssh -t -qC -l me h tma attach --pane %3"},
	}
	for _, c := range cases {
		argv, err := AttachArgv(c.r, c.server, "%3")
		if err != nil || strings.Join(argv, " ") != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, argv, err, c.want)
		}
	}
	for _, cmd := range [][]string{{"sh", "-c", "ssh b"}, {"ssh", "-T"}, {"ssh", "-i"}} {
		if _, err := AttachArgv(config.Remote{Name: "b", Command: cmd}, "/s", "%3"); err == nil || !strings.Contains(err.Error(), "remote b: no attach argv") || !strings.Contains(err.Error(), "set attach") {
			t.Errorf("%q: %v", cmd, err)
		}
	}
}
