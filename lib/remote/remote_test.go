package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
)

// stand writes a stand-in serve: a script that reads the two requests and
// prints what body says.
func stand(t *testing.T, body string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "serve")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nread -r hello\nread -r snap\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{p}
}

func ms(n int) *int { return &n }

func TestSnapshot(t *testing.T) {
	cmd := stand(t, `printf '%s\n' '{"schema":1,"id":"1","t":"hello","host":"box","tma_version":"1","reconcile_interval_ms":2000,"scopes":["read"]}' '{"schema":1,"id":"2","t":"snapshot","at_ms":1,"server":"/tmp/tmux-1/default","rows":[{"pane":"%3","agent":"claude","state":"blocked","detail":"permission","since":5,"locator":"work:2.1","attention":true,"done":false,"server":"/tmp/tmux-1/default","host":"box"}]}'`)
	res := Snapshot(context.Background(), config.Remote{Name: "build", Command: cmd}, "0")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.Host != "box" || res.Server != "/tmp/tmux-1/default" || len(res.Rows) != 1 {
		t.Fatalf("%+v", res)
	}
	r := res.Rows[0]
	if r.Host != "build" || r.Server != "/tmp/tmux-1/default" || r.Pane != "%3" || *r.Detail != "permission" || r.Title != "" {
		t.Errorf("row %+v", r)
	}
	row := Row(r)
	if row.TmuxSession != "work" || row.Window != 2 || row.Index != 1 {
		t.Errorf("locator read back as %q %d %d", row.TmuxSession, row.Window, row.Index)
	}
}

func TestSnapshotFailures(t *testing.T) {
	cases := []struct {
		name, body string
		want       string
	}{
		{"refused", `echo '{"schema":1,"id":"0","t":"error","code":"scope-denied","message":"not paired"}'; exit 2`, "scope-denied: not paired"},
		{"garbage", `echo 'Welcome to the shell'`, "not a serve frame: Welcome"},
		{"eof", `exit 0`, "ended before a snapshot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Snapshot(context.Background(), config.Remote{Name: "b", Command: stand(t, c.body)}, "0")
			if res.Err == nil || !strings.Contains(res.Err.Error(), c.want) {
				t.Errorf("err %v, want %q", res.Err, c.want)
			}
		})
	}
	res := Snapshot(context.Background(), config.Remote{Name: "b", Command: []string{filepath.Join(t.TempDir(), "nosuch")}}, "0")
	if res.Err == nil {
		t.Error("a missing command gave no error")
	}
}

// A remote that never answers costs its timeout, not more, and its
// children die with it.
func TestSnapshotHang(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := stand(t, "sleep 30 &\necho $! > "+pidFile+"\nwait\n")
	start := time.Now()
	res := Snapshot(context.Background(), config.Remote{Name: "b", Command: cmd, TimeoutMS: ms(300)}, "0")
	took := time.Since(start)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "no answer in 300ms") {
		t.Fatalf("err %v", res.Err)
	}
	// Generous: the bound is asserted loosely (2 cores under load), the
	// exact figure belongs to make bench.
	if took > 20*time.Second {
		t.Errorf("a 300ms timeout took %s", took)
	}
	b, _ := os.ReadFile(pidFile)
	var pid int
	if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &pid); err == nil && pid > 0 {
		deadline := time.Now().Add(5 * time.Second)
		for processAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if processAlive(pid) {
			t.Errorf("the remote's child %d outlived the deadline", pid)
		}
	}
}

func TestHosts(t *testing.T) {
	cfg := config.Default()
	cfg.Remotes = []config.Remote{{Name: "build", Command: []string{"x"}}, {Name: "vm", Command: []string{"y"}}}
	rs, local, err := Hosts([]string{"all"}, cfg, "laptop")
	if err != nil || !local || len(rs) != 2 {
		t.Errorf("all: %v %v %v", rs, local, err)
	}
	rs, local, err = Hosts([]string{"vm"}, cfg, "laptop")
	if err != nil || local || len(rs) != 1 || rs[0].Name != "vm" {
		t.Errorf("vm: %v %v %v", rs, local, err)
	}
	rs, local, err = Hosts([]string{"laptop", "build"}, cfg, "laptop")
	if err != nil || !local || len(rs) != 1 || rs[0].Name != "build" {
		t.Errorf("laptop,build: %v %v %v", rs, local, err)
	}
	if _, _, err := Hosts([]string{"nosuch"}, cfg, "laptop"); err == nil || !strings.Contains(err.Error(), `unknown host "nosuch" (--host takes all, laptop, build, vm)`) {
		t.Errorf("unknown: %v", err)
	}
}
