package hook

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

const agentToml = `
min_engine_version = "0.1"
[identity]
process_names = ["agent"]
[hooks]
covers = ["working", "idle", "blocked", "lifecycle"]
[[hooks.map]]
event = "Start"
claim = { lifecycle = "start" }
[[hooks.map]]
event = "Run"
claim = { state = "working" }
[[hooks.map]]
event = "Ask"
matcher = '"kind"\s*:\s*"permission"'
claim = { state = "blocked", detail = "permission" }
[[hooks.map]]
event = "Done"
claim = { state = "idle" }
turn_end = true
[[hooks.map]]
event = "End"
claim = { lifecycle = "end" }
[capture]
`

func agent(t *testing.T) *manifest.Agent {
	a, err := manifest.Parse("agent", "test", []byte(agentToml))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func plan(t *testing.T, event, payload string, panes []Pane) *Plan {
	t.Helper()
	pl, err := Build(Event{Agent: agent(t), Name: event, Payload: ParsePayload(payload), Pane: "%1", NowMS: 1_800_000_000_000}, panes)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

var onePane = []Pane{{ID: "%1"}, {ID: "%2", Session: "s-2", Name: "agent"}}

func TestNoOps(t *testing.T) {
	cases := map[string]*Plan{
		"unmapped":           plan(t, "Nope", `{}`, onePane),
		"matcher fails":      plan(t, "Ask", `{"kind":"other"}`, onePane),
		"pane not on server": plan(t, "Run", `{}`, []Pane{{ID: "%7"}}),
		"subagent event":     plan(t, "Run", `{"session_id":"s","agent_id":"a1"}`, onePane),
		"another session":    plan(t, "Run", `{"session_id":"x"}`, []Pane{{ID: "%1", Session: "s-1", Name: "agent"}}),
		"end of another":     plan(t, "End", `{"session_id":"x"}`, []Pane{{ID: "%1", Session: "s-1", Name: "agent"}}),
	}
	for name, pl := range cases {
		if len(pl.Lines) != 0 || pl.Why == "" {
			t.Errorf("%s: lines %q why %q", name, pl.Lines, pl.Why)
		}
	}
	pl, err := Build(Event{Agent: nil, Name: "Run", Pane: "%1"}, onePane)
	if err != nil || len(pl.Lines) != 0 {
		t.Errorf("no manifest: %+v %v", pl, err)
	}
}

func TestClaimShape(t *testing.T) {
	pl := plan(t, "Ask", `{"kind":"permission","session_id":"s-1","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/x\nrm -rf ~"}}`, onePane)
	if len(pl.Lines) != 2 {
		t.Fatalf("lines = %q", pl.Lines)
	}
	raise, tuple := pl.Lines[0], pl.Lines[1]
	// The rollups follow the claim on its line.
	tuple, rollup, ok := strings.Cut(tuple, " ; set -wF -t %1 @tma_rollup ")
	if !ok || !strings.Contains(rollup, "set -wF -t %1 @agent_summary ") || !strings.Contains(rollup, "set -F -t %1 @agent_session_summary ") {
		t.Errorf("no rollups after the claim:\n%s", pl.Lines[1])
	}
	if !strings.Contains(raise, "#{!=:#{@agent_state},blocked}") || !strings.Contains(raise, "@agent_attention") {
		t.Errorf("attention raise: %s", raise)
	}
	for _, want := range []string{"if-shell -F -t %1 '#{&&:" + notIgnored + ",#{||:#{e|<:#{@agent_evidence_at},1800000000000}," + tmux.FromTheFuture(1800000000000) + "}}'", "@agent_state '\\''blocked'\\''",
		"@agent_source '\\''hook'\\''", "@agent_pending_tool '\\''Bash'\\''", "rm -rf /tmp/x rm -rf ~"} {
		if !strings.Contains(tuple, want) {
			t.Errorf("tuple lacks %q:\n%s", want, tuple)
		}
	}
	if !strings.HasSuffix(tuple, "@agent_stamped_at '\\''1800000000000'\\'''") {
		t.Errorf("stamped_at is not last:\n%s", tuple)
	}
	if strings.Contains(tuple, "@agent_session") {
		t.Error("a state claim registered a session: only a lifecycle start does")
	}
	if strings.Contains(tuple, "\n") {
		t.Error("a payload newline reached the command line")
	}
}

func TestAttribution(t *testing.T) {
	// The shared daemon ran the hook with %1's $TMUX_PANE, but the session is %2's.
	pl := plan(t, "Run", `{"session_id":"s-2"}`, onePane)
	if pl.Pane != "%2" || len(pl.Lines) != 1 || !strings.Contains(pl.Lines[0], "-t %2") {
		t.Fatalf("plan = %+v", pl)
	}
}

// The named pane is the target when it hosts the agent, and always with
// --pane; only a foreign $TMUX_PANE gives way to the session's pane.
func TestNamedPaneWins(t *testing.T) {
	panes := []Pane{{ID: "%1", Name: "agent"}, {ID: "%2", Session: "s-2", Name: "agent"}}
	for name, c := range map[string]struct {
		ev   Event
		want string
	}{
		"TMUX_PANE hosting the agent":        {Event{Pane: "%1"}, "%1"},
		"--pane":                             {Event{Pane: "%3", Explicit: true}, ""},
		"--pane on a pane with no agent yet": {Event{Pane: "%4", Explicit: true}, "%4"},
		"TMUX_PANE not on the server":        {Event{Pane: "%9"}, "%2"},
	} {
		ev := c.ev
		ev.Agent, ev.Name, ev.Payload, ev.NowMS = agent(t), "Run", ParsePayload(`{"session_id":"s-2"}`), 1_800_000_000_000
		ps := append(panes, Pane{ID: "%4"})
		pl, err := Build(ev, ps)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Pane != c.want {
			t.Errorf("%s: target %q, want %q (%s)", name, pl.Pane, c.want, pl.Why)
		}
	}
}

func TestTurnEndDedup(t *testing.T) {
	pl := plan(t, "Done", `{}`, onePane)
	if len(pl.Lines) != 2 || !strings.Contains(pl.Lines[0], "#{e|>=:#{e|-:1800000000000,#{@agent_turn_at}},3000}") {
		t.Fatalf("turn end = %q", pl.Lines)
	}
}

// Every write of a hook is guarded by the pane's opt-out.
func TestIgnoredPaneNeverWritten(t *testing.T) {
	for _, ev := range []string{"Start", "Ask", "Run", "Done", "End"} {
		pl := plan(t, ev, `{"kind":"permission","session_id":"s-1","tool_name":"Bash"}`, []Pane{{ID: "%1", Session: "s-1", Name: "agent"}})
		if len(pl.Lines) == 0 {
			t.Fatalf("%s: no lines", ev)
		}
		for _, l := range pl.Lines {
			if !strings.HasPrefix(l, "if-shell -F -t %1 '"+notIgnored+"'") && !strings.HasPrefix(l, "if-shell -F -t %1 '#{&&:"+notIgnored+",") {
				t.Errorf("%s: unguarded line %q", ev, l)
			}
		}
	}
}

func TestSubagentBookkeeping(t *testing.T) {
	panes := []Pane{{ID: "%1", Session: "s", Name: "agent", Subagents: "a0"}}
	pl := plan(t, "SubagentStart", `{"session_id":"s","agent_id":"a1"}`, panes)
	if len(pl.Lines) != 1 || !strings.Contains(pl.Lines[0], `@agent_subagents '\''a0 a1'\''`) {
		t.Fatalf("start = %q", pl.Lines)
	}
	panes[0].Subagents = "a1"
	pl = plan(t, "SubagentStop", `{"session_id":"s","agent_id":"a1"}`, panes)
	if len(pl.Lines) != 1 || !strings.Contains(pl.Lines[0], "set -pu -t %1 @agent_subagents") {
		t.Fatalf("stop = %q", pl.Lines)
	}
}

func TestLifecycle(t *testing.T) {
	pl := plan(t, "Start", `{"session_id":"s-1","transcript_path":"/t"}`, onePane)
	if len(pl.Lines) != 2 || !strings.Contains(pl.Lines[0], `@agent_session '\''s-1'\''`) || !strings.Contains(pl.Lines[1], "#{==:#{@agent_state},}") {
		t.Fatalf("start = %q", pl.Lines)
	}
	pl = plan(t, "End", `{"session_id":"s-1"}`, []Pane{{ID: "%1", Session: "s-1", Name: "agent"}})
	if len(pl.Lines) != 1 || !strings.Contains(pl.Lines[0], "set -pu -t %1 @agent_state") || strings.Contains(pl.Lines[0], "@agent_mute_until") {
		t.Fatalf("end = %q", pl.Lines)
	}
}

func TestClean(t *testing.T) {
	if got := Clean("a\x1b[31mb\tc", 120); got != "a [31mb c" {
		t.Errorf("got %q", got)
	}
	if got := Clean(strings.Repeat("é", 100), 121); len(got) != 120 {
		t.Errorf("cut on a rune boundary: %d bytes", len(got))
	}
}

func TestBlindPlan(t *testing.T) {
	a := agent(t)
	ev := Event{Agent: a, Name: "Run", Payload: ParsePayload(`{"session_id":"s-1"}`), Pane: "%4", NowMS: 5}
	pl, err := Build(ev, nil)
	if err != nil || pl.NeedPanes || len(pl.Lines) != 1 {
		t.Fatalf("%+v %v", pl, err)
	}
	l := pl.Lines[0]
	if !strings.HasPrefix(l, "if-shell -F -t %4 '#{==:#{@agent_session},s-1}' ") || !strings.HasSuffix(l, " 'display -p "+Elsewhere+"'") {
		t.Errorf("blind line: %s", l)
	}
	// What rides the call (from_event's arm lines) holds under the same
	// guard, and prints nothing where the claim gives way.
	if pl.Guard != "#{==:#{@agent_session},s-1}" {
		t.Errorf("guard %q", pl.Guard)
	}
	if w := pl.Within([]string{"display -p x"}); len(w) != 1 || w[0] != "if-shell -F -t %4 '#{==:#{@agent_session},s-1}' 'display -p x'" {
		t.Errorf("within: %q", w)
	}
	// Without a session the claim holds under no guard, nor does its company.
	pl, _ = Build(Event{Agent: a, Name: "Run", Payload: ParsePayload(`{}`), Pane: "%4", NowMS: 5}, nil)
	if w := pl.Within([]string{"display -p x"}); pl.Guard != "" || len(w) != 1 || w[0] != "display -p x" {
		t.Errorf("no session: guard %q, within %q", pl.Guard, w)
	}
	if pl, _ := Build(ev, []Pane{{ID: "%4"}}); len(pl.Lines) == 0 || pl.Guard != "" {
		t.Errorf("a listed plan has guard %q", pl.Guard)
	}
	for _, name := range []string{"Start", "SubagentStart"} {
		pl, _ := Build(Event{Agent: a, Name: name, Payload: ParsePayload(`{"session_id":"s","agent_id":"x"}`), Pane: "%4"}, nil)
		if !pl.NeedPanes {
			t.Errorf("%s planned blind", name)
		}
	}
	// A session id that could break out of a format is no session at all.
	if p := ParsePayload(`{"session_id":"a},#{pane_id"}`); p.Session != "" {
		t.Errorf("hostile session id kept: %q", p.Session)
	}
}

func TestEventTime(t *testing.T) {
	if p := ParsePayload(`{"tma_at_ms":1800000000123}`); p.AtMS != 1800000000123 {
		t.Errorf("tma_at_ms: %d", p.AtMS)
	}
	if p := ParsePayload(`{"tma_at_ms":"soon"}`); p.AtMS != 0 {
		t.Errorf("a non-number: %d", p.AtMS)
	}
}

func TestReplyLaneStamp(t *testing.T) {
	a, err := manifest.Parse("claude", "test", []byte(agentToml))
	if err != nil {
		t.Fatal(err)
	}
	a.Name = ReplyLaneAgent
	lanes := []struct {
		event, payload string
		hold, clear    bool
	}{
		{"Ask", `{"kind":"permission"}`, false, false}, // blocked, but not claude's PermissionRequest
		{"Run", `{}`, false, true},
		{"Done", `{}`, false, true},
		{"End", `{}`, false, true},
		{"Run", `{"agent_id":"sub"}`, false, false},
		{"Nope", `{}`, false, false},
	}
	for _, c := range lanes {
		hold, clear := Lane(a, c.event, ParsePayload(c.payload))
		if hold != c.hold || clear != c.clear {
			t.Errorf("Lane(%s %s) = %v %v, want %v %v", c.event, c.payload, hold, clear, c.hold, c.clear)
		}
	}
	// A request id rides the claim, before @agent_stamped_at.
	pl, err := Build(Event{Agent: a, Name: "Run", Payload: ParsePayload(`{}`), Pane: "%1", NowMS: 1, Request: "6f1c2a09d4b7e310"}, onePane)
	if err != nil {
		t.Fatal(err)
	}
	if l := strings.Join(pl.Lines, "\n"); !strings.Contains(l, "set -pu -t %1 @agent_permission_request") {
		t.Errorf("a working claim does not unset the request:\n%s", l)
	}
	// Another agent's events never touch it.
	pl = plan(t, "Run", `{}`, onePane)
	if strings.Contains(strings.Join(pl.Lines, "\n"), "permission_request") {
		t.Errorf("a non-lane agent touches the request: %v", pl.Lines)
	}
}

func TestReplyLaneMint(t *testing.T) {
	a, err := manifest.Parse("claude", "test", []byte(strings.Replace(agentToml, `event = "Ask"`, `event = "PermissionRequest"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	a.Name = ReplyLaneAgent
	p := ParsePayload(`{"kind":"permission","tool_name":"Bash","tool_input":{"command":"x"}}`)
	if hold, clear := Lane(a, "PermissionRequest", p); !hold || clear {
		t.Fatalf("Lane(PermissionRequest) = %v %v", hold, clear)
	}
	pl, err := Build(Event{Agent: a, Name: "PermissionRequest", Payload: p, Pane: "%1", NowMS: 1, Request: "6f1c2a09d4b7e310"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Join(pl.Lines, "\n")
	if len(pl.Lines) != 2 || pl.NeedPanes || !strings.Contains(l, `set -p -t %1 @agent_permission_request '\''6f1c2a09d4b7e310'\'' ; set -p -t %1 @agent_stamped_at`) {
		t.Errorf("the request id is not in the claim's one write:\n%s", l)
	}
}

// A lifecycle start from a pane whose own tree holds the agent (the hook
// found its agent above itself inside that pane: AgentPID) is that pane's,
// and takes the session's registration from wherever it stood (issue 27,
// item 4: `claude --resume` in a new pane while the old registration, a
// stale or ssh pane's, still stands). A start with no such pid keeps the
// shared daemon's routing: to the pane that registered the session.
func TestResumedSessionMovesItsRegistration(t *testing.T) {
	panes := []Pane{{ID: "%11", Session: "X", Name: "agent"}, {ID: "%18"}, {ID: "%20", Session: "Y", Name: "agent"}}
	start := func(pane string, pid int) *Plan {
		t.Helper()
		pl, err := Build(Event{Agent: agent(t), Name: "Start", Payload: ParsePayload(`{"session_id":"X"}`), Pane: pane, AgentPID: pid, NowMS: 1_800_000_000_000}, panes)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	for _, pane := range []string{"%18", "%20"} { // unstamped, or registered to another session
		pl := start(pane, 4242)
		all := strings.Join(pl.Lines, "\n")
		if pl.Pane != pane || !strings.Contains(all, "set -p -t "+pane+" @agent_session '\\''X'\\''") || !strings.Contains(all, "set -p -t "+pane+" @agent_pid '\\''4242'\\''") {
			t.Fatalf("start from %s with its agent in its tree: target %q (%s)\n%s", pane, pl.Pane, pl.Why, all)
		}
		// The old pane gives the session up: its set is cleared, as at a
		// session end, only while it is still registered to that session.
		var moved string
		for _, l := range pl.Lines {
			if strings.HasPrefix(l, "if-shell -F -t %11 ") {
				moved = l
			}
		}
		for _, want := range []string{"#{==:#{@agent_session},X}", "set -pu -t %11 @agent_session", "set -pu -t %11 @agent_state", "set -wF -t %11 @agent_summary"} {
			if !strings.Contains(moved, want) {
				t.Errorf("start from %s: the old registration's clear lacks %q:\n%s", pane, want, all)
			}
		}
		if strings.Contains(moved, "@agent_mute_until") || strings.Contains(all, "-t %20 @agent_session '\\''Y") {
			t.Errorf("start from %s: %s", pane, all)
		}
	}
	// No agent pid: a shared daemon's hook with another pane's $TMUX_PANE.
	if pl := start("%18", 0); pl.Pane != "%11" || strings.Contains(strings.Join(pl.Lines, "\n"), "-t %18") {
		t.Errorf("a start with no agent in the pane's tree left the registered pane: target %q\n%s", pl.Pane, strings.Join(pl.Lines, "\n"))
	}
}

// A claim or a registration that names a pane for another agent drops what
// the agent before reported (its gauge, its context_high marker) in the
// same line; the pane's own agent, and a stale event, take nothing (issue
// 27 item 9). Run on a real server: the condition is tmux's.
func TestHandoverDropsTheOldAgentsReadings(t *testing.T) {
	s := testkit.NewServer(t)
	pane := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s:", "sh"))
	other, err := manifest.Parse("other", "test", []byte(strings.Replace(agentToml, `process_names = ["agent"]`, `process_names = ["other"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	readings := []string{"@agent_context_pct", "@agent_context_at", "@agent_tokens", "@agent_model", "@agent_context_notified_at"}
	seed := func(name string, evidenceAt int64) {
		for _, kv := range [][2]string{{"@agent_name", name}, {"@agent_state", "idle"}, {"@agent_evidence_at", strconv.FormatInt(evidenceAt, 10)}} {
			s.MustRun("set", "-p", "-t", pane, kv[0], kv[1])
		}
		for _, o := range readings {
			s.MustRun("set", "-p", "-t", pane, o, "55")
		}
	}
	apply := func(a *manifest.Agent, event, payload string, panes []Pane, now int64) {
		t.Helper()
		pl, err := Build(Event{Agent: a, Name: event, Payload: ParsePayload(payload), Pane: pane, NowMS: now}, panes)
		if err != nil || len(pl.Lines) == 0 {
			t.Fatalf("%s: %+v %v", event, pl, err)
		}
		if _, err := s.Run("source-file", writeLines(t, pl.Lines)); err != nil {
			t.Fatalf("%s: %v", event, err)
		}
	}
	kept := func(why string, want bool) {
		t.Helper()
		for _, o := range readings {
			if got := s.Option(pane, o) != ""; got != want {
				t.Errorf("%s: %s kept=%v", why, o, got)
			}
		}
	}
	const now = 1_800_000_000_000
	seed("agent", now-1000)
	apply(agent(t), "Run", `{}`, nil, now)
	kept("the pane's own agent", true)
	seed("agent", now+1000)
	apply(other, "Run", `{}`, nil, now)
	kept("a stale event of another agent", true)
	if s.Option(pane, "@agent_name") != "agent" {
		t.Fatalf("the stale claim landed")
	}
	seed("agent", now-1000)
	apply(other, "Run", `{}`, nil, now)
	kept("a claim naming the pane for another agent", false)
	if s.Option(pane, "@agent_name") != "other" || s.Option(pane, "@agent_state") != "working" {
		t.Errorf("the claim did not land")
	}
	seed("agent", now-1000)
	apply(other, "Start", `{"session_id":"o-1"}`, []Pane{{ID: pane, Name: "agent"}}, now)
	kept("another agent's registration", false)
	if s.Option(pane, "@agent_session") != "o-1" {
		t.Errorf("the registration did not land")
	}
}

func writeLines(t *testing.T, lines []string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "lines")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
