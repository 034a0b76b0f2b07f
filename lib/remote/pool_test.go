package remote

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/testkit"
)

// once is a stand-in serve that answers one hello and one snapshot and
// then exits: a held connection the host ended after its answer.
func once(t *testing.T) []string {
	return []string{testkit.ServeStandIn(t,
		`*'"t":"hello"'*) printf '{"schema":1,"id":"%s","t":"hello","host":"box"}\n' "$id"`,
		`*'"t":"snapshot"'*) printf '{"schema":1,"id":"%s","t":"snapshot","at_ms":7,"rows":[],"panes":[]}\n' "$id"; exit 0`,
	)}
}

// Asks on one remote share one dial and give the rows a one-shot
// Snapshot gives; an idle connection is dropped and the next ask dials.
func TestPoolHolds(t *testing.T) {
	r := config.Remote{Name: "build", Command: loop(t), TimeoutMS: ms(20000)}
	p := NewPool("0", time.Hour)
	defer p.Close()
	want := Snapshot(context.Background(), r, "0")
	if want.Err != nil {
		t.Fatal(want.Err)
	}
	for i := 0; i < 3; i++ {
		got := p.Snapshot(context.Background(), r)
		if got.Err != nil || !reflect.DeepEqual(got.Rows, want.Rows) || !reflect.DeepEqual(got.Panes, want.Panes) {
			t.Fatalf("ask %d: %+v, want %+v", i, got, want)
		}
	}
	if d := p.Dials("build"); d != 1 || !p.Held("build") {
		t.Errorf("three asks: %d dials, held %v", d, p.Held("build"))
	}
	// A changed entry (a reload) is a new connection.
	r2 := r
	r2.TimeoutMS = ms(19000)
	if got := p.Snapshot(context.Background(), r2); got.Err != nil || p.Dials("build") != 2 {
		t.Errorf("a changed entry: %v, %d dials", got.Err, p.Dials("build"))
	}

	idle := NewPool("0", 100*time.Millisecond)
	defer idle.Close()
	if got := idle.Snapshot(context.Background(), r); got.Err != nil {
		t.Fatal(got.Err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for idle.Held("build") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if idle.Held("build") {
		t.Fatal("the idle connection is still held")
	}
	if got := idle.Snapshot(context.Background(), r); got.Err != nil || idle.Dials("build") != 2 {
		t.Errorf("after the idle drop: %v, %d dials", got.Err, idle.Dials("build"))
	}
}

// A held connection the host ended is dialled again within the ask; a
// remote that hangs, exits at once, or will not start fails with the
// words of a one-shot Snapshot, within its timeout.
func TestPoolFailsAsOneShot(t *testing.T) {
	p := NewPool("0", time.Hour)
	defer p.Close()
	r := config.Remote{Name: "flaky", Command: once(t), TimeoutMS: ms(20000)}
	for i := 0; i < 2; i++ {
		if got := p.Snapshot(context.Background(), r); got.Err != nil || got.Rows == nil {
			t.Fatalf("ask %d: %+v", i, got)
		}
	}
	if d := p.Dials("flaky"); d != 2 {
		t.Errorf("the ended connection: %d dials, want 2", d)
	}

	for _, r := range []config.Remote{
		{Name: "dead", Command: []string{"sleep", "600"}, TimeoutMS: ms(300)},
		{Name: "gone", Command: []string{"true"}, TimeoutMS: ms(20000)},
		{Name: "nosuch", Command: []string{"/nonexistent/tma-remote"}, TimeoutMS: ms(20000)},
	} {
		want := Snapshot(context.Background(), r, "0")
		start := time.Now()
		got := p.Snapshot(context.Background(), r)
		took := time.Since(start)
		if want.Err == nil || got.Err == nil || got.Err.Error() != want.Err.Error() || Why(got.Err) != Why(want.Err) {
			t.Errorf("%s: pool said %v, one-shot %v", r.Name, got.Err, want.Err)
		}
		if took > 10*time.Second {
			t.Errorf("%s: the ask took %s", r.Name, took)
		}
		if p.Held(r.Name) {
			t.Errorf("%s: a failed remote is held", r.Name)
		}
	}
}
