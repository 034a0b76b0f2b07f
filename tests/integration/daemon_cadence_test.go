package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The [daemon] cadences the daemon's scan applies (tma-scan --follow
// --daemon): the reconciliation sweep (sweep_secs) and each pane's
// active->quiet edge (quiet_ms). Each test runs the scan twice, with the key
// set so it must show and set so it must not, so a scan ignoring the key
// fails one of the two.

// scanPane is the part of a pane record these tests read.
type scanPane struct {
	Kind      string          `json:"kind"`
	NowMS     int64           `json:"now_ms"`
	Pane      string          `json:"pane"`
	Capture   json.RawMessage `json:"capture"`
	Skipped   string          `json:"capture_skipped"`
	QuietEdge int64           `json:"quiet_edge_ms"`
}

// followScan starts the daemon's scan on this env's server and returns its
// pane records as they come; it is stopped (by its pid) when the test ends.
func (e *env) followScan(t *testing.T) <-chan scanPane {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "tma-scan"), "-L", e.s.Name, "--follow", "--daemon", "--interval", "250ms")
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ch := make(chan scanPane, 1024)
	go func() {
		defer close(ch)
		dec := json.NewDecoder(bufio.NewReader(out))
		for {
			var p scanPane
			if dec.Decode(&p) != nil {
				return
			}
			if p.Kind == "pane" {
				ch <- p
			}
		}
	}()
	return ch
}

// collect gathers pane's records for d.
func collect(ch <-chan scanPane, pane string, d time.Duration) []scanPane {
	var got []scanPane
	end := time.After(d)
	for {
		select {
		case p, ok := <-ch:
			if !ok {
				return got
			}
			if p.Pane == pane {
				got = append(got, p)
			}
		case <-end:
			return got
		}
	}
}

// stampQuiet stamps the pane as a finished idle capture verdict, so the
// skip rule reuses it while the window stays quiet.
func stampQuiet(e *env, pane string) {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	for _, kv := range [][2]string{{"@agent_state", "idle"}, {"@agent_source", "capture"}, {"@agent_evidence_at", now},
		{"@agent_since", now}, {"@agent_stamped_at", now}, {"@agent_name", "claude"}} {
		e.s.MustRun("set-option", "-p", "-t", pane, kv[0], kv[1])
	}
}

// TestDaemonSweepSecs: the sweep reads a quiet pane's screen although its
// stamp could be reused; with a long sweep_secs it is read only by the
// first cycle (the daemon's start is a sweep too).
func TestDaemonSweepSecs(t *testing.T) {
	for _, tc := range []struct {
		secs  int
		sweep bool
	}{{1, true}, {3600, false}} {
		t.Run(strconv.Itoa(tc.secs), func(t *testing.T) {
			e := newEnv(t, "[daemon]\nsweep_secs = "+strconv.Itoa(tc.secs)+"\n")
			a := e.s.StartAgent("claude", claudeIdle)
			time.Sleep(1100 * time.Millisecond) // the paint's second of window_activity is over
			stampQuiet(e, a.Pane)
			got := collect(e.followScan(t), a.Pane, 3500*time.Millisecond)
			if len(got) < 4 {
				t.Fatalf("%d records of %s in 3.5 s, want a cycle every 250 ms", len(got), a.Pane)
			}
			if got[0].Capture == nil || string(got[0].Capture) == "null" {
				t.Fatalf("the first cycle did not read %s: %+v", a.Pane, got[0])
			}
			var swept, skipped int
			for _, p := range got[1:] {
				if p.Capture != nil && string(p.Capture) != "null" {
					swept++
				} else if p.Skipped == "quiet" {
					skipped++
				}
			}
			if tc.sweep && swept < 2 {
				t.Fatalf("sweep_secs = 1: %d of %d later cycles read the quiet pane, want one a second", swept, len(got)-1)
			}
			if !tc.sweep && (swept != 0 || skipped == 0) {
				t.Fatalf("sweep_secs = 3600: %d later cycles read the quiet pane (%d skipped), want none", swept, skipped)
			}
		})
	}
}

// TestDaemonQuietMS: output in a pane gives it one active->quiet edge once
// it has been quiet for quiet_ms, dated by the output, and the edge's cycle
// reads the pane; a quiet_ms longer than the watch gives none.
func TestDaemonQuietMS(t *testing.T) {
	for _, tc := range []struct {
		ms   int
		edge bool
	}{{300, true}, {60000, false}} {
		t.Run(strconv.Itoa(tc.ms), func(t *testing.T) {
			e := newEnv(t, "[daemon]\nquiet_ms = "+strconv.Itoa(tc.ms)+"\n")
			a := e.s.StartAgent("claude", claudeIdle)
			ch := e.followScan(t)
			collect(ch, a.Pane, 1500*time.Millisecond) // the control client attaches
			before := time.Now().UnixMilli()
			a.Paint(strings.Replace(claudeIdle, "Done.", "Done, and more.", 1))
			var edges []scanPane
			for _, p := range collect(ch, a.Pane, 3*time.Second) {
				if p.QuietEdge > 0 {
					edges = append(edges, p)
				}
			}
			if !tc.edge {
				if len(edges) != 0 {
					t.Fatalf("quiet_ms = 60000: edges within 3 s: %+v", edges)
				}
				return
			}
			if len(edges) != 1 {
				t.Fatalf("quiet_ms = 300: %d edges for one paint, want 1: %+v", len(edges), edges)
			}
			p := edges[0]
			if p.QuietEdge < before || p.NowMS-p.QuietEdge < 300 {
				t.Fatalf("edge at %d for output after %d, reported at %d: want the output's time, 300 ms or more before its cycle", p.QuietEdge, before, p.NowMS)
			}
			if p.Capture == nil || string(p.Capture) == "null" {
				t.Fatalf("the edge's cycle did not read the pane: %+v", p)
			}
		})
	}
}
