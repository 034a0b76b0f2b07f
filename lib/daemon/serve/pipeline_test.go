package serve

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
)

const oneCycle = `{"v":1,"kind":"cycle","now_ms":5,"server":"/s"}
{"v":1,"kind":"row","now_ms":5,"row":{"pane":"%1","agent":"claude","state":"blocked"},"source":"hook"}
{"v":1,"kind":"end","now_ms":5}
`

func testLog(t *testing.T) (*Log, string) {
	p := filepath.Join(t.TempDir(), "d.log")
	l, err := OpenLog(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l, p
}

// The last stage's records arrive as whole cycles; an error outside a
// cycle arrives on its own.
func TestReadCycles(t *testing.T) {
	out := make(chan *Cycle, 4)
	in := `{"v":1,"kind":"error","tool":"tma-scan","message":"no tmux server"}` + "\n" + oneCycle
	err := readCycles(context.Background(), strings.NewReader(in), out)
	if err == nil || !strings.Contains(err.Error(), "closed its output") {
		t.Fatalf("end: %v", err)
	}
	e := <-out
	if e.Cycle != nil || len(e.Errors) != 1 || e.Errors[0].Message != "no tmux server" {
		t.Fatalf("lone error: %+v", e)
	}
	c := <-out
	if c.Cycle == nil || len(c.Rows) != 1 || c.Rows[0].Row.State != "blocked" || c.Rows[0].Source != "hook" {
		t.Fatalf("cycle: %+v", c)
	}
}

// Three processes joined by pipes, the last one's cycles delivered; a
// pipeline that ends is started again, later each time, its stderr in
// the log; cancelling stops it.
func TestSuperviseRestartsWithBackoff(t *testing.T) {
	log, logPath := testLog(t)
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	scan := Stage{Name: "scan", Path: "/bin/sh", Args: []string{"-c", `echo x >> "$0"; printf '%s' "$1"; echo complaint >&2`, starts, oneCycle}}
	cat := Stage{Name: "cat", Path: "/bin/cat"}
	out := make(chan *Cycle, 16)
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var states []string
	done := make(chan struct{})
	go func() {
		supervise(ctx, func() []Stage { return []Stage{scan, cat, cat} }, os.Environ(), log, out, func(s string) { mu.Lock(); states = append(states, s); mu.Unlock() })
		close(done)
	}()
	var got []time.Time
	for len(got) < 3 {
		select {
		case c := <-out:
			if c.Cycle == nil || c.Cycle.Server != "/s" {
				t.Fatalf("cycle %+v", c)
			}
			got = append(got, time.Now())
		case <-time.After(10 * time.Second):
			t.Fatal("no cycle")
		}
	}
	cancel()
	<-done
	if g1, g2 := got[1].Sub(got[0]), got[2].Sub(got[1]); g1 < RestartMin || g2 < 2*RestartMin {
		t.Fatalf("restarts %s then %s apart, want at least %s then %s", g1, g2, RestartMin, 2*RestartMin)
	}
	b, _ := os.ReadFile(logPath)
	if !strings.Contains(string(b), "scan: complaint") || !strings.Contains(string(b), "pipeline ended") {
		t.Fatalf("log:\n%s", b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(states) < 3 || states[0] != "running" || !strings.HasPrefix(states[1], "restarting in 250ms") {
		t.Fatalf("states %q", states)
	}
}

// A stage that cannot start is a failed pipeline, retried, never a crash.
func TestSuperviseMissingStage(t *testing.T) {
	log, logPath := testLog(t)
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	supervise(ctx, func() []Stage { return []Stage{{Name: "nope", Path: filepath.Join(t.TempDir(), "missing")}} }, nil, log, make(chan *Cycle), func(string) {})
	if b, _ := os.ReadFile(logPath); !strings.Contains(string(b), "starting nope") {
		t.Fatalf("log:\n%s", b)
	}
}

// The log is 0600 and bounded: past MaxLog it moves to .1 and starts over.
func TestLogRotates(t *testing.T) {
	log, p := testLog(t)
	line := strings.Repeat("x", 1000)
	for i := 0; i < MaxLog/1000+10; i++ {
		log.Printf("%s", line)
	}
	st, err := os.Stat(p)
	if err != nil || st.Size() > MaxLog || st.Mode().Perm() != 0o600 {
		t.Fatalf("log %v %v", st, err)
	}
	if st, err := os.Stat(p + ".1"); err != nil || st.Size() > MaxLog || st.Size() < MaxLog/2 {
		t.Fatalf("rotated %v %v", st, err)
	}
}

// A stage's ArgsFrom is asked at each start, under the config the daemon
// runs on then: a pipeline restarted after a reload takes the new one's.
func TestStagesTakeTheCurrentConfig(t *testing.T) {
	base := make([]string, 1, 4) // room after Args, which a start must not write into
	base[0] = "--follow"
	scan := Stage{Name: "scan", Path: "/bin/true", Args: base, ArgsFrom: func(cfg *config.Config) []string {
		return []string{"--push=" + strconv.FormatBool(cfg.Tmux.ControlClients)}
	}}
	fold := Stage{Name: "fold", Path: "/bin/cat", Args: []string{"-u"}}
	on, off := config.Default(), config.Default()
	off.Tmux.ControlClients = false
	d := &state{o: Options{Stages: []Stage{scan, fold}}, loaded: &Loaded{Config: on}}
	if got := d.stages(); strings.Join(got[0].Args, " ") != "--follow --push=true" || strings.Join(got[1].Args, " ") != "-u" {
		t.Fatalf("under the defaults: %q %q", got[0].Args, got[1].Args)
	}
	d.loaded = &Loaded{Config: off}
	if got := d.stages(); strings.Join(got[0].Args, " ") != "--follow --push=false" {
		t.Fatalf("after the reload: %q", got[0].Args)
	}
	if len(d.o.Stages[0].Args) != 1 || base[:2][1] != "" {
		t.Fatalf("the stage's own Args changed: %q (%q)", d.o.Stages[0].Args, base[:2])
	}
}
