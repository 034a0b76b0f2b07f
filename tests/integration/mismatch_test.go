package integration

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// tmuxHeader is the imsg header generation of a tmux -V line: tmux 3.6
// moved the descriptor mark into the length's top bit without a new
// protocol number, so a client from before it and a server from after it
// (or the other way) cannot talk, and neither names a mismatch.
func tmuxHeader(t *testing.T, bin string) (string, bool) {
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		t.Fatalf("%s -V: %v", bin, err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "tmux ")
	maj, rest, _ := strings.Cut(v, ".")
	mi := strings.TrimRightFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(mi)
	if err1 != nil || err2 != nil {
		return v, false // master, next-3.8: after 3.6
	}
	return v, a < 3 || a == 3 && b < 6
}

// TestClientFromAnotherRelease (D-009): a tmux client from before 3.6
// against a server from 3.6 on is dropped without a word ("server exited
// unexpectedly"); tma says it is a protocol mismatch and names the way out,
// not "no tmux server running". It runs where the tests' tmux and PATH's
// differ across 3.6: CI's 3.7c tier (TMA_TMUX_BIN) with the system's 3.3a.
func TestClientFromAnotherRelease(t *testing.T) {
	e := newEnv(t, "")
	sys, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux on PATH")
	}
	sv, sOld := tmuxHeader(t, e.s.Bin)
	cv, cOld := tmuxHeader(t, sys)
	if sOld == cOld {
		t.Skipf("the server's tmux %s and PATH's %s share a message header: run with TMA_TMUX_BIN naming a tmux on the other side of 3.6", sv, cv)
	}
	e.s.StartAgent("claude", claudeIdle)
	_, errs, code := e.tmaEnv([]string{"TMA_TMUX_BIN=" + sys}, "ls")
	if code == 0 {
		t.Fatalf("tma ls through tmux %s against a %s server succeeded", cv, sv)
	}
	for _, want := range []string{"protocol version mismatch", "tmate", "TMA_TMUX_BIN"} {
		if !strings.Contains(errs, want) {
			t.Errorf("tma ls (client %s, server %s) lacks %q:\n%s", cv, sv, want, errs)
		}
	}
	if strings.Contains(errs, "no tmux server running") {
		t.Errorf("a running server reported as none:\n%s", errs)
	}
}
