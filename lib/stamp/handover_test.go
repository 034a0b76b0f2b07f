package stamp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/testkit"
)

// A cycle that names a pane for another agent (claude respawned as gemini)
// drops what the agent before reported, its context_high marker included,
// on the same line as its write; a pane that holds no reading costs no more
// (issue 27 item 9). Run on a real server: the condition is tmux's.
func TestHandoverOnARename(t *testing.T) {
	s := testkit.NewServer(t)
	pane := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	const now = 1_800_000_000_000
	readings := map[string]string{"@agent_context_pct": "55", "@agent_context_at": strconv.Itoa(now - 5000),
		"@agent_tokens": "110000", "@agent_model": "opus", "@agent_context_notified_at": strconv.Itoa(now - 4000)}
	seed := func(name string) map[string]string {
		o := map[string]string{"@agent_name": name, "@agent_state": "idle", "@agent_since": strconv.Itoa(now - 9000),
			"@agent_evidence_at": strconv.Itoa(now - 9000), "@agent_stamped_at": strconv.Itoa(now - 9000)}
		for k, v := range readings {
			o[k] = v
		}
		for k, v := range o {
			s.MustRun("set", "-p", "-t", pane, k, v)
		}
		return o
	}
	cycle := func(agent string, opts map[string]string, act string) []string {
		t.Helper()
		p := &record.Pane{Pane: pane, Agent: agent, Identity: "process", Opts: opts,
			Verdict: &record.Verdict{State: "idle", Action: act, Source: "capture", EvidenceAt: now, Since: now, EpisodeReset: true, GuardAt: now - 9000, Refresh: true}}
		p.Capture = &record.Capture{AtMS: now}
		pl, err := Build(&record.Cycle{NowMS: now, Scoped: true}, []*record.Pane{p}, now)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "lines")
		if err := os.WriteFile(f, []byte(strings.Join(pl.Lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run("source-file", f); err != nil {
			t.Fatal(err)
		}
		return pl.Lines
	}
	held := func(why string, want bool) {
		t.Helper()
		for k := range readings {
			if got := s.Option(pane, k) != ""; got != want {
				t.Errorf("%s: %s held=%v", why, k, got)
			}
		}
	}
	for _, act := range []string{record.ActPublish, record.ActHold} {
		cycle("claude", seed("claude"), act)
		held(act+": the pane's own agent", true)
		cycle("gemini", seed("claude"), act)
		held(act+": claude's pane now running gemini", false)
		if got := s.Option(pane, "@agent_name"); got != "gemini" {
			t.Errorf("%s: the pane is %q", act, got)
		}
		// A rival (gemini's own hook) named the pane first: what gemini
		// has reported since stays.
		opts := seed("claude")
		s.MustRun("set", "-p", "-t", pane, "@agent_name", "gemini")
		cycle("gemini", opts, act)
		held(act+": a pane gemini's hook already named", true)
	}
	// Nothing to drop, nothing added: the line is the plain write.
	lines := cycle("gemini", map[string]string{"@agent_name": "claude", "@agent_state": "idle"}, record.ActPublish)
	if strings.Contains(strings.Join(lines, "\n"), "@agent_context_pct") {
		t.Errorf("a rename with no readings: %q", lines)
	}
}
