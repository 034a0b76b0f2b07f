package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActAllNeverApproves: with two panes blocked on a permission prompt,
// approve --all is refused before any fire (exit 2, the reason said) and
// reaches neither; deny, the manual's fan-out, still reaches both.
func TestActAllNeverApproves(t *testing.T) {
	e := newEnv(t, "")
	a, ain := e.s.StartRecordingAgent("claude", claudeBlocked)
	b, bin := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	e.expect(b.Pane, "blocked/permission attn")

	out, errs, code := e.tma("act", "approve", "--all", "--state", "blocked")
	if code != 2 || !strings.Contains(errs, "approve answers a prompt, and a prompt is answered one prompt at a time") || out != "" {
		t.Fatalf("approve --all: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	e.nothingSent(ain)
	e.nothingSent(bin)
	if _, errs, code := e.tma("act", "approve", "--all", "--state", "blocked", "--dry-run"); code != 2 {
		t.Errorf("approve --all --dry-run: exit %d %s", code, errs)
	}
	if _, errs, code := e.tma("act", "deny", "--all", "--state", "blocked"); code != 0 {
		t.Fatalf("deny --all: exit %d %s", code, errs)
	}
	e.waitSent(ain, "\x1b")
	e.waitSent(bin, "\x1b")
}

// raceTmux is a tmux that, on the batch carrying the keys (the broker's
// send, after its read under the lock), first lets claude's hook say that
// a question replaced the permission prompt, then runs the batch: the race
// the audit forced with SIGSTOP (2 in 12), made certain.
func (e *env) raceTmux(pane string) string {
	e.t.Helper()
	w := filepath.Join(e.t.TempDir(), "tmux")
	payload := filepath.Join(e.t.TempDir(), "question.json")
	if err := os.WriteFile(payload, []byte(`{`+sess+`,"hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{"questions":[]}}`), 0o644); err != nil {
		e.t.Fatal(err)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := "#!/bin/sh\n" +
		"sf=\nfor a; do [ \"$a\" = source-file ] && sf=1; done\n" +
		"if [ -n \"$sf\" ]; then\n" +
		"  in=$(cat)\n" +
		"  case $in in *send-keys*)\n" +
		"    TMA_TMUX_BIN=" + q(e.s.Bin) + " TMUX_PANE=" + pane + " TMA_SOCKET_PATH=" + q(e.s.Socket) + " TMUX= " +
		q(filepath.Join(binDir, "tma-hook")) + " claude PermissionRequest < " + q(payload) + " ;;\n" +
		"  esac\n" +
		"  printf '%s\\n' \"$in\" | exec " + q(e.s.Bin) + " \"$@\"\n" +
		"fi\n" +
		"exec " + q(e.s.Bin) + " \"$@\"\n"
	if err := os.WriteFile(w, []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return w
}

// TestApproveNeverLandsOnTheReplacingPrompt: approve reads a permission
// prompt under its lock; before its keys go out, claude's hook says a
// question replaced it. The keys are guarded in the tmux command that
// sends them, on the tuple the read saw: the question receives nothing and
// the fire is refused (gated, exit 4), naming what the pane is now.
func TestApproveNeverLandsOnTheReplacingPrompt(t *testing.T) {
	e := newEnv(t, laneOff)
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")

	r, errs, code := e.actJSON([]string{"TMA_TMUX_BIN=" + e.raceTmux(a.Pane)}, "approve", "--pane", a.Pane)
	e.nothingSent(in)
	if code != 4 || r.Outcome != "refused" || r.reason() != "gated" {
		t.Fatalf("raced approve: exit %d %+v\n%s", code, r, errs)
	}
	if !strings.Contains(errs, "blocked/question") {
		t.Errorf("the refusal does not name the question: %s", errs)
	}
	if o := e.opts(a.Pane); o["@agent_detail"] != "question" || o["@agent_action"] != "" {
		t.Errorf("after the race: detail %q, lock %q", o["@agent_detail"], o["@agent_action"])
	}
}

// TestActDryRunBindsTheEpisode: a dry run with a stale --expect-episode-ms
// says the refusal the fire would meet (episode-changed, exit 4); the live
// episode is fireable.
func TestActDryRunBindsTheEpisode(t *testing.T) {
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	out, _, code := e.tma("act", "approve", "--pane", a.Pane, "--dry-run", "--expect-episode-ms", "1")
	if code != 4 || !strings.Contains(out, "gate:    refused: episode-changed") {
		t.Errorf("stale episode: exit %d\n%s", code, out)
	}
	ep := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{@agent_since}"))
	if out, _, code = e.tma("act", "approve", "--pane", a.Pane, "--dry-run", "--expect-episode-ms", ep); code != 0 || !strings.Contains(out, "gate:    fireable") {
		t.Errorf("live episode %s: exit %d\n%s", ep, code, out)
	}
	e.nothingSent(in)
}
