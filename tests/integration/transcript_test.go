package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// copyFixture puts one of fixtures/transcripts' files at dst.
func copyFixture(t *testing.T, rel, dst string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "transcripts", rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

type transcriptDoc struct {
	Schema int     `json:"schema"`
	Pane   string  `json:"pane"`
	Agent  string  `json:"agent"`
	Path   string  `json:"path"`
	Older  *string `json:"older"`
	Events []struct {
		Cursor  string  `json:"cursor"`
		Kind    string  `json:"kind"`
		Preview string  `json:"preview"`
		Body    *string `json:"body"`
	} `json:"events"`
	Event *struct {
		Cursor string  `json:"cursor"`
		Body   *string `json:"body"`
	} `json:"event"`
	Refusal *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"refusal"`
}

func decodeTranscript(t *testing.T, out string) transcriptDoc {
	t.Helper()
	var d transcriptDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not a transcript document: %v\n%s", err, out)
	}
	return d
}

// TestTranscriptThroughTheDispatcher: `tma transcript` on a real, isolated
// tmux server, for a pane whose @agent_transcript names a real claude
// transcript and one whose @agent_session names an OpenCode session: text
// and JSON pages, --before, --event, and every exit code (0 served, 3 no
// such pane, 4 a typed refusal, 1 a runtime failure, 2 usage).
func TestTranscriptThroughTheDispatcher(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "") // OpenCode's database under the test's HOME
	e := newEnv(t, "")
	s := e.s
	pane := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	path := filepath.Join(e.home, ".claude", "projects", "-tmp-lab-project", "7e438f55-8363-469e-b23d-3921c641f85b.jsonl")
	copyFixture(t, "claude/7e438f55-8363-469e-b23d-3921c641f85b.jsonl", path)
	s.MustRun("set-option", "-p", "-t", pane, "@agent_name", "claude")
	s.MustRun("set-option", "-p", "-t", pane, "@agent_transcript", path)

	out, errs, code := e.tma("transcript", "--pane", pane, "--last", "5")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[1], "user_message     2026-12-01T10:52:02.840Z  <local-command-stdout>Catch you later!") {
		t.Fatalf("text page: exit %d\n%s\nstderr %s", code, out, errs)
	}
	const more = "tma: more before this page: --before "
	if !strings.HasPrefix(errs, more) || strings.Count(errs, "\n") != 1 {
		t.Fatalf("the older line on stderr: %q", errs)
	}
	older := strings.TrimSpace(strings.TrimPrefix(errs, more))
	out2, _, code := e.tma("transcript", "--pane", pane, "--last", "5", "--before", older)
	if code != 0 || out2 == out || strings.Count(out2, "\n") != 5 {
		t.Fatalf("the page behind: exit %d\n%s", code, out2)
	}

	out, errs, code = e.tma("transcript", "--pane", pane, "--last", "2", "--json")
	d := decodeTranscript(t, out)
	if code != 0 || d.Schema != 1 || d.Pane != pane || d.Agent != "claude" || d.Path != path || len(d.Events) != 2 || d.Older == nil || d.Events[0].Body == nil {
		t.Fatalf("--json: exit %d %s %s", code, out, errs)
	}
	if k := testkit.KeyOrder(t, out); k != "schema pane agent path session older budget_truncated unknown events" {
		t.Errorf("envelope keys %s", k)
	}
	out, _, code = e.tma("transcript", "--pane", pane, "--event", d.Events[1].Cursor, "--json")
	one := decodeTranscript(t, out)
	if code != 0 || one.Event == nil || one.Event.Cursor != d.Events[1].Cursor || one.Event.Body == nil || one.Events != nil {
		t.Fatalf("--event: exit %d %s", code, out)
	}
	out, _, _ = e.tma("transcript", "--pane", pane, "--last", "2", "--json", "--headers")
	if h := decodeTranscript(t, out); len(h.Events) != 2 || h.Events[0].Body != nil {
		t.Errorf("--headers: %s", out)
	}

	// OpenCode: the database under the store layout, found from the session id.
	s.MustRun("split-window", "-d", "-t", "s:", "sh")
	oc := strings.TrimSpace(s.MustRun("display", "-p", "-t", "s:0.1", "#{pane_id}"))
	copyFixture(t, "opencode/opencode.db", filepath.Join(e.home, ".local", "share", "opencode", "opencode.db"))
	s.MustRun("set-option", "-p", "-t", oc, "@agent_name", "opencode")
	s.MustRun("set-option", "-p", "-t", oc, "@agent_session", "ses_dce9ec42bffe5f9VeKTAN7IUpP")
	out, errs, code = e.tma("transcript", "--pane", oc, "--last", "3", "--json")
	if od := decodeTranscript(t, out); code != 0 || od.Agent != "opencode" || len(od.Events) != 3 || od.Events[0].Kind != "usage" {
		t.Fatalf("opencode: exit %d %s %s", code, out, errs)
	}

	// A typed refusal, in text and as a document: exit 4.
	s.MustRun("set-option", "-p", "-t", oc, "@agent_name", "cursor")
	_, errs, code = e.tma("transcript", "--pane", oc)
	if code != 4 || !strings.HasPrefix(errs, "tma: store-incomplete: ") {
		t.Errorf("cursor: exit %d %q", code, errs)
	}
	out, _, code = e.tma("transcript", "--pane", oc, "--json")
	if r := decodeTranscript(t, out); code != 4 || r.Refusal == nil || r.Refusal.Code != "store-incomplete" || r.Pane != oc {
		t.Errorf("cursor --json: exit %d %s", code, out)
	}
	s.MustRun("set-option", "-p", "-t", oc, "-u", "@agent_name")
	out, _, code = e.tma("transcript", "--pane", oc, "--json")
	if r := decodeTranscript(t, out); code != 4 || r.Refusal == nil || r.Refusal.Code != "no-transcript" {
		t.Errorf("a pane with no agent: exit %d %s", code, out)
	}
	out, _, code = e.tma("transcript", "--pane", pane, "--before", "t1.0.0.0.0.0", "--json")
	if r := decodeTranscript(t, out); code != 4 || r.Refusal == nil || r.Refusal.Code != "cursor-invalid" {
		t.Errorf("a stale cursor: exit %d %s", code, out)
	}

	if _, errs, code = e.tma("transcript", "--pane", "%999"); code != 3 || !strings.Contains(errs, "no such pane %999") {
		t.Errorf("no such pane: exit %d %q", code, errs)
	}
	for _, args := range [][]string{{"--pane", pane, "--last", "0"}, {"--pane", pane, "--before", "a", "--event", "b"}, {"--pane", "seven"}, {"--pane", pane, "--nope"}} {
		if _, errs, code = e.tma(append([]string{"transcript"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage) %q", args, code, errs)
		}
	}
	_, errs, code = e.tma("-L", "tma-no-such-server-here", "transcript", "--pane", pane)
	if code != 1 || !strings.Contains(errs, "no tmux server") {
		t.Errorf("no server: exit %d %q", code, errs)
	}
}

// TestPickerTranscriptPreview: in the picker, ctrl-t swaps the preview of
// the highlighted agent's screen for its transcript (tma-transcript's text
// page), and ctrl-t again swaps it back.
func TestPickerTranscriptPreview(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	path := filepath.Join(e.home, ".claude", "projects", "-tmp-lab-project", "7e438f55-8363-469e-b23d-3921c641f85b.jsonl")
	copyFixture(t, "claude/7e438f55-8363-469e-b23d-3921c641f85b.jsonl", path)
	e.s.MustRun("set-option", "-p", "-t", a.Pane, "@agent_transcript", path)
	picker := e.tmaWindow("tma; echo PICKER-EXIT $?; sleep 600")
	e.attach(picker)
	e.waitScreen(picker, "the screen preview", func(s string) bool { return strings.Contains(s, "Worked for 6s") })
	e.s.MustRun("send-keys", "-t", picker, "C-t")
	e.waitScreen(picker, "the transcript preview", func(s string) bool {
		return strings.Contains(s, "user_message") && strings.Contains(s, "tool_call") && !strings.Contains(s, "Worked for 6s")
	})
	e.s.MustRun("send-keys", "-t", picker, "C-t")
	e.waitScreen(picker, "the screen preview again", func(s string) bool {
		return strings.Contains(s, "Worked for 6s") && !strings.Contains(s, "user_message")
	})
	e.s.MustRun("send-keys", "-t", picker, "Escape")
	e.waitScreen(picker, "the picker closed", func(s string) bool { return strings.Contains(s, "PICKER-EXIT 0") })
}

// TestWatchTranscriptPreview: in watch, t swaps the preview of the selected
// agent's screen for its transcript, refreshed with the cycles, and back.
func TestWatchTranscriptPreview(t *testing.T) {
	e := newEnv(t, "")
	withBins(t, e)
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	path := filepath.Join(e.home, ".claude", "projects", "-tmp-lab-project", "7e438f55-8363-469e-b23d-3921c641f85b.jsonl")
	copyFixture(t, "claude/7e438f55-8363-469e-b23d-3921c641f85b.jsonl", path)
	e.s.MustRun("set-option", "-p", "-t", a.Pane, "@agent_transcript", path)
	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	e.attach(watch)
	e.waitScreen(watch, "the screen preview", func(s string) bool {
		return strings.Contains(s, "Worked for 6s") && strings.Contains(s, "t transcript")
	})
	e.s.MustRun("send-keys", "-t", watch, "t")
	e.waitScreen(watch, "the transcript preview", func(s string) bool {
		return strings.Contains(s, "user_message") && strings.Contains(s, "tool_call") && !strings.Contains(s, "Worked for 6s") && strings.Contains(s, "t screen")
	})
	// A line the agent appends shows on a later refresh.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","timestamp":"2026-12-02T00:00:00.000Z","message":{"role":"user","content":"FRESH-LINE"}}` + "\n")
	f.Close()
	e.waitScreen(watch, "the appended event", func(s string) bool { return strings.Contains(s, "2026-12-02T00:00:00") })
	e.s.MustRun("send-keys", "-t", watch, "t")
	e.waitScreen(watch, "the screen preview again", func(s string) bool {
		return strings.Contains(s, "Worked for 6s") && !strings.Contains(s, "user_message")
	})
	e.s.MustRun("send-keys", "-t", watch, "q")
	e.waitScreen(watch, "q quits", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })
}
