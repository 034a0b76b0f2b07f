package integration

import (
	"strings"
	"testing"
)

// TestSkewedDaemonOfferSaysWhatThisRunWired: install-hooks and init offer
// to restart a daemon of another build; they say "the hooks just wired
// reach that build" only when the run wired some, and on a re-run that
// wrote nothing that every hook event reaches that build (issue 27 item 19).
func TestSkewedDaemonOfferSaysWhatThisRunWired(t *testing.T) {
	e := newEnv(t, "")
	if _, errs, code := e.tma("install-hooks", "claude", "--yes"); code != 0 {
		t.Fatalf("install-hooks: %d %s", code, errs)
	}
	holdLockEnv(t, e.paths(), "trap '' TERM")
	const offer = "tma: the daemon running for this server is version 0.0.1, not this build ("
	out, errs, code := e.tma("install-hooks", "claude")
	if code != 0 || !strings.Contains(out, offer) || !strings.Contains(out, "): every hook event reaches that build, not this one\n") || strings.Contains(out, "just wired") {
		t.Errorf("a re-run that wired nothing: exit %d\n%s%s", code, out, errs)
	}
	out, errs, _ = e.tma("init")
	if !strings.Contains(out, "tma: init 5/7: a resident daemon of another build\n"+offer) || strings.Contains(out, "just wired") {
		t.Errorf("init's step 5 on a re-run:\n%s%s", out, errs)
	}
	out, errs, _ = e.tma("install-hooks", "codex", "--yes")
	if !strings.Contains(out, "tma: installed hooks for codex") || !strings.Contains(out, "): the hooks just wired reach that build\n") {
		t.Errorf("a run that wired codex:\n%s%s", out, errs)
	}
}
