package bench

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/remote"
)

// BenchmarkRemoteHeld times what the picker's and watch's refresh of a
// remote costs on the connection they hold (lib/remote.Poller: one ssh
// session, a snapshot request per refresh) against a one-shot dial (a new
// ssh connection, hello, snapshot: what `ls --host` pays), over a real
// sshd on 127.0.0.1 to a tmux server with 10 fake claude agents. In
// process, so neither includes a tma process start. It reports; it
// asserts only that the rows arrive.
func BenchmarkRemoteHeld(b *testing.B) {
	h := newFarHost(b)
	sshd, k := h.sshd, h.key
	to := 30000
	r := config.Remote{Name: "build", Command: sshd.SSH(k), TimeoutMS: &to}
	ctx := context.Background()
	for range 3 {
		if res := remote.Snapshot(ctx, r, "bench"); res.Err != nil || len(res.Rows) != 10 {
			b.Fatalf("warm-up: %v, %d rows", res.Err, len(res.Rows))
		}
	}
	n := max(b.N, 10)
	fmt.Printf("\n## Remote refresh (%d runs each; 10 agents; sshd on 127.0.0.1; loadavg %s)\n\n| what | median ms | min ms |\n|---|---|---|\n", n, loadavg())
	report := func(what string, ds []time.Duration) {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Printf("| %s | %.1f | %.1f |\n", what, ms(ds[len(ds)/2]), ms(ds[0]))
	}
	var ds []time.Duration
	for range n {
		start := time.Now()
		res := remote.Snapshot(ctx, r, "bench")
		ds = append(ds, time.Since(start))
		if res.Err != nil || len(res.Rows) != 10 {
			b.Fatalf("one-shot: %v, %d rows", res.Err, len(res.Rows))
		}
	}
	report("one-shot dial (new ssh connection, hello, snapshot)", ds)
	conn, err := remote.Dial(ctx, r, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Kill()
	ds = nil
	for range n {
		start := time.Now()
		snap, err := conn.Snapshot(ctx)
		ds = append(ds, time.Since(start))
		if err != nil || len(snap.Rows) != 10 {
			b.Fatalf("held: %v", err)
		}
	}
	report("held connection: one snapshot request", ds)
}
