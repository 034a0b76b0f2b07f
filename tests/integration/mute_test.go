package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// muted reads tma ls's muted column (the ninth) and the JSON rows' muted
// key for every pane, and requires they agree.
func (e *env) muted() map[string]bool {
	e.t.Helper()
	col, doc := e.mutedViews()
	for p, m := range doc {
		if col[p] != m {
			e.t.Fatalf("%s: the muted column says %v, the JSON %v", p, col[p], m)
		}
	}
	return col
}

// mutedViews reads the muted column and the JSON's muted key. They come
// from two cycles, so a deadline may pass between them.
func (e *env) mutedViews() (col, doc map[string]bool) {
	e.t.Helper()
	out, errs, code := e.tma("ls")
	if code != 0 {
		e.t.Fatalf("tma ls: exit %d %s", code, errs)
	}
	col = map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 12 {
			col[f[0]] = f[8] == "1"
		}
	}
	js, _, _ := e.tma("ls", "--json")
	var ls struct {
		Agents []struct {
			Pane  string `json:"pane"`
			Muted bool   `json:"muted"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(js), &ls); err != nil {
		e.t.Fatal(err)
	}
	doc = map[string]bool{}
	for _, a := range ls.Agents {
		doc[a.Pane] = a.Muted
	}
	return col, doc
}

// TestMuteShowsInLsAndExpires: a selector mutes every pane it matches (one
// line each), tma ls shows the mute in its column and as "muted": true
// while the state stays what it was, --clear ends it, a --for mute ends on
// its own, and a pane the server does not have is exit 3.
func TestMuteShowsInLsAndExpires(t *testing.T) {
	e := newEnv(t, "")
	b := e.s.StartAgent("claude", claudeBlocked)
	w := e.s.StartAgent("claude", claudeWorking)
	i := e.s.StartAgent("claude", claudeIdle)
	e.expect(b.Pane, "blocked/permission attn")
	e.expect(w.Pane, "working")
	e.expect(i.Pane, "idle")

	out, errs, code := e.tma("mute", "--state", "blocked,working")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "muted "+b.Pane+" until cleared\n") || !strings.Contains(out, "muted "+w.Pane+" until cleared\n") {
		t.Fatalf("mute by selector: exit %d %q %s", code, out, errs)
	}
	if v := e.s.Option(b.Pane, "@agent_mute_until"); v != "99999999999999" {
		t.Errorf("indefinite mute stored as %q", v)
	}
	if m := e.muted(); !m[b.Pane] || !m[w.Pane] || m[i.Pane] {
		t.Errorf("muted after the selector mute: %v", m)
	}
	if got := e.ls(); got[b.Pane] != "blocked/permission attn" || got[w.Pane] != "working" {
		t.Errorf("a mute changed what tma detects: %v", got)
	}
	// Idempotent: muting again is harmless.
	if out, _, code = e.tma("mute", "--pane", b.Pane); code != 0 || out != "muted "+b.Pane+" until cleared\n" {
		t.Errorf("mute again: exit %d %q", code, out)
	}

	if out, _, code = e.tma("mute", "--clear", "--state", "blocked,working"); code != 0 || !strings.Contains(out, "unmuted "+b.Pane+"\n") || !strings.Contains(out, "unmuted "+w.Pane+"\n") {
		t.Fatalf("clear: exit %d %q", code, out)
	}
	if v := e.s.Option(b.Pane, "@agent_mute_until"); v != "" {
		t.Errorf("--clear left %q", v)
	}
	if m := e.muted(); m[b.Pane] || m[w.Pane] {
		t.Errorf("muted after --clear: %v", m)
	}
	if _, _, code = e.tma("mute", "--clear", "--pane", i.Pane); code != 0 {
		t.Errorf("clearing an unmuted pane: exit %d", code)
	}

	// A mute with a deadline ends on its own.
	if out, _, code = e.tma("mute", "--pane", i.Pane, "--for", "2"); code != 0 || !strings.HasPrefix(out, "muted "+i.Pane+" for 2s (until ") {
		t.Fatalf("mute --for 2: exit %d %q", code, out)
	}
	if m := e.muted(); !m[i.Pane] {
		t.Errorf("not muted right after --for 2: %v", m)
	}
	// Both views end the mute (each read may straddle the deadline).
	deadline := time.Now().Add(10 * time.Second)
	for {
		col, doc := e.mutedViews()
		if _, listed := doc[i.Pane]; !listed {
			t.Fatalf("%s left tma ls", i.Pane)
		}
		if !col[i.Pane] && !doc[i.Pane] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 2 s mute never ended")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Default target: $TMUX_PANE.
	if out, errs, code = e.tmaEnv([]string{"TMUX_PANE=" + w.Pane}, "mute", "--for", "1h"); code != 0 || !strings.HasPrefix(out, "muted "+w.Pane+" for 1h (until ") {
		t.Errorf("mute $TMUX_PANE: exit %d %q %s", code, out, errs)
	}
	if m := e.muted(); !m[w.Pane] {
		t.Errorf("$TMUX_PANE not muted: %v", m)
	}

	if _, errs, code = e.tma("mute", "--pane", "%999"); code != 3 || !strings.Contains(errs, "no pane %999") {
		t.Errorf("mute a missing pane: exit %d %s", code, errs)
	}
	if _, errs, code = e.tma("mute", "--agent", "nosuch"); code != 2 || !strings.Contains(errs, "no agent pane matches") {
		t.Errorf("an empty selector: exit %d %s", code, errs)
	}
	for _, args := range [][]string{{"--for", "0"}, {"--for", "1h30m"}, {"--for", "1.5h"}, {"--for", "5", "--clear"}, {"--pane", b.Pane, "--agent", "claude"}} {
		if _, _, code = e.tma(append([]string{"mute"}, args...)...); code != 2 {
			t.Errorf("mute %v: exit %d, want 2", args, code)
		}
	}
}
