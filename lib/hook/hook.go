package hook

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/telemetry"
	"github.com/tmaproject/tma/lib/tmux"
)

// TurnDedupMS: two turn ends within this window are one turn. Codex reports
// a turn's end on two channels (hooks.json Stop and notify) a few ms apart.
const TurnDedupMS = 3000

// Pane is what the server showed about one pane before the event is applied.
type Pane struct {
	ID, Session, Name, Subagents string
	PID                          int // @agent_pid
	PanePID                      int
}

// Event is one hook invocation.
type Event struct {
	Agent    *manifest.Agent
	Name     string // the agent's event name
	Payload  Payload
	Pane     string // $TMUX_PANE or --pane
	Explicit bool   // Pane was named by --pane: it is the target, whatever the session
	AgentPID int    // the agent process found above the hook, 0 if none
	NowMS    int64
	// Request is the reply-lane request id the caller minted for a held
	// permission prompt (see Lane): the claim stamps it on RequestOption.
	Request string
	// Telemetry is a context reading the caller took from elsewhere than
	// the payload (a file-tail channel: Codex's rollout), stamped with the
	// event.
	Telemetry *telemetry.Reading
}

// The claude hook reply lane (docs/actions.md): a permission prompt's hook
// stamps the request id it holds on RequestOption; the agent's next event
// that is not a blocked claim unsets it.
const (
	ReplyLaneAgent = "claude"
	RequestOption  = "@agent_permission_request"
)

// The OpenCode API lane (docs/actions.md): a permission or question event
// stamps the request's own id and the server the plugin says is
// listening; the agent's next claim that is not blocked unsets the ids.
const (
	APILaneAgent   = "opencode"
	QuestionOption = "@agent_question_request"
	EndpointOption = "@agent_api_endpoint"
)

// Lane says what an event means for the reply lane: hold (a permission
// prompt of the lane's agent: mint an id, stamp it, hold) or clear (that
// agent moved on: a claim that is not blocked, or its session's end).
// Subagents' events do neither.
func Lane(a *manifest.Agent, event string, p Payload) (hold, clear bool) {
	if a == nil || a.Name != ReplyLaneAgent || a.Hooks == nil || p.SubagentID != "" {
		return false, false
	}
	m := a.MapEvent(event, p.Raw)
	if m == nil {
		return false, false
	}
	if m.Claim.Lifecycle == "end" {
		return false, true
	}
	if m.Claim.State == "" {
		return false, false
	}
	if m.Claim.State != "blocked" {
		return false, true
	}
	return event == "PermissionRequest" && a.NormalizeDetail(m.Claim.Detail) == "permission", false
}

// Plan is the outcome: the lines to run (one tmux invocation) and why.
type Plan struct {
	Pane  string
	Lines []string
	Why   string
	// NeedPanes: this event cannot be planned blind; list the panes and
	// build again (registration, subagent bookkeeping).
	NeedPanes bool
	// Guard is the condition a blind plan's lines hold under (the pane is
	// registered to the event's session); "" when they hold under none.
	Guard string
}

// Within wraps lines that ride the plan's tmux call (from_event's arm
// lines) in the plan's own guard: where the claim gives way to the listed
// path, nothing beside it may read the pane's tuple either, since that
// tuple is the episode the event is about to end.
func (pl *Plan) Within(lines []string) []string {
	if pl.Guard == "" || len(lines) == 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "if-shell -F -t " + pl.Pane + " " + tmux.Quote(pl.Guard) + " " + tmux.Quote(l)
	}
	return out
}

// Elsewhere is what a blind plan prints when the pane is registered to
// another session: the event belongs to the pane that registered it (a
// shared agent daemon runs hooks with another pane's $TMUX_PANE), so the
// caller lists the panes and builds again.
const Elsewhere = "tma-hook:elsewhere"

// Build decides what an event writes. panes is the server's pane list; nil
// Plan lines mean a clean no-op (Why says which).
//
// With panes == nil the plan is blind: it targets ev.Pane and checks the
// pane's session server-side, so the common event costs one tmux spawn.
func Build(ev Event, panes []Pane) (*Plan, error) {
	if ev.Name == telemetry.ContextKind {
		return contextPlan(ev)
	}
	if panes == nil {
		return blind(ev)
	}
	return build(ev, panes)
}

func blind(ev Event) (*Plan, error) {
	a := ev.Agent
	if a == nil || a.Hooks == nil {
		return &Plan{Why: "no manifest with hooks for this agent"}, nil
	}
	m := a.MapEvent(ev.Name, ev.Payload.Raw)
	if ev.Payload.SubagentID != "" || ev.Name == "SubagentStart" || ev.Name == "SubagentStop" || m != nil && m.Claim.Lifecycle == "start" {
		return &Plan{NeedPanes: true, Why: "needs the pane list"}, nil
	}
	pl, err := build(ev, []Pane{{ID: ev.Pane}})
	if err != nil || len(pl.Lines) == 0 || ev.Payload.Session == "" {
		return pl, err
	}
	// Only where the pane is registered to this very session; any other pane
	// (unregistered, or another session's) takes the listed path, which finds
	// the pane that registered the session if there is one.
	guard := "#{==:#{@agent_session}," + ev.Payload.Session + "}"
	pl.Guard = guard
	for i, l := range pl.Lines {
		w := "if-shell -F -t " + pl.Pane + " " + tmux.Quote(guard) + " " + tmux.Quote(l)
		if i == len(pl.Lines)-1 {
			w += " " + tmux.Quote("display -p "+Elsewhere)
		}
		pl.Lines[i] = w
	}
	return pl, nil
}

// build plans the event, then the rollups: whatever the claim changed, the
// window's and session's @agent_summary are recomputed after it, on the
// claim's own line (so a blind plan's session guard covers them too).
func build(ev Event, panes []Pane) (*Plan, error) {
	pl, err := claim(ev, panes)
	if err != nil || pl == nil || len(pl.Lines) == 0 {
		return pl, err
	}
	l, err := stamp.RollupLine(pl.Pane)
	if err != nil {
		return nil, err
	}
	pl.Lines[len(pl.Lines)-1] += " ; " + l
	// A reading that rides the event (pi's context on agent_settled, or
	// one the caller read from a rollout) goes after the claim, which may
	// have registered the pane the reading's guard asks for.
	if r := eventReading(ev); r != nil {
		tl, err := TelemetryLine(ev, pl.Pane, *r)
		if err != nil {
			return nil, err
		}
		pl.Lines = append(pl.Lines, tl)
	}
	return pl, nil
}

// contextPlan is a context event (the statusline shim's): telemetry only,
// never a claim, on the named pane.
func contextPlan(ev Event) (*Plan, error) {
	a := ev.Agent
	if a == nil || a.Telemetry == nil || a.Telemetry.Context == nil {
		return &Plan{Why: "no [telemetry.context] in this agent's manifest: a context payload stamps nothing"}, nil
	}
	tc := a.Telemetry.Context
	if tc.Channel != "event" {
		return &Plan{Why: fmt.Sprintf("%s's context channel is %s, not event", a.Name, tc.Channel)}, nil
	}
	r, err := telemetry.Parse(tc.Format, []byte(ev.Payload.Raw))
	if err != nil {
		return &Plan{Why: err.Error()}, nil
	}
	if r.Empty() {
		return &Plan{Why: "the context payload reports nothing yet"}, nil
	}
	if !tmux.ValidPaneID(ev.Pane) {
		return &Plan{Why: fmt.Sprintf("pane %q is not a pane id", ev.Pane)}, nil
	}
	l, err := TelemetryLine(ev, ev.Pane, r)
	if err != nil {
		return nil, err
	}
	return &Plan{Pane: ev.Pane, Lines: []string{l}, Why: "context " + describeReading(r)}, nil
}

// eventReading is the reading a non-context event carries: the caller's,
// else, for an agent whose context channel is event, the gauge in the
// payload itself (a payload with no gauge, such as every claude hook's,
// adds nothing).
func eventReading(ev Event) *telemetry.Reading {
	if ev.Telemetry != nil {
		if ev.Telemetry.Empty() {
			return nil
		}
		return ev.Telemetry
	}
	a := ev.Agent
	if a == nil || a.Telemetry == nil || a.Telemetry.Context == nil || a.Telemetry.Context.Channel != "event" {
		return nil
	}
	if !strings.Contains(ev.Payload.Raw, "context") {
		return nil // the common event: no decode
	}
	r, err := telemetry.Parse(a.Telemetry.Context.Format, []byte(ev.Payload.Raw))
	if err != nil || !r.Gauge() {
		return nil
	}
	return &r
}

// TelemetryLine is one reading's guarded write on pane: only on a pane
// this agent holds (registered by a hook or a cycle, so a stale gauge can
// never outlive its agent unseen), of the event's session when both say
// one, and only when the reading is newer than what the pane stores.
func TelemetryLine(ev Event, pane string, r telemetry.Reading) (string, error) {
	at := r.At(ev.NowMS)
	guard := "#{&&:" + notIgnored + ",#{&&:#{==:#{@agent_name}," + ev.Agent.Name + "}," + telemetry.Guard(at) + "}}"
	if s := ev.Payload.Session; s != "" {
		guard = "#{&&:" + guard + ",#{||:#{==:#{@agent_session},},#{==:#{@agent_session}," + s + "}}}"
	}
	return tmux.Write{Pane: pane, Guard: guard, Sets: r.Sets(at)}.Line()
}

func describeReading(r telemetry.Reading) string {
	var parts []string
	if r.ContextPct != nil {
		parts = append(parts, fmt.Sprintf("%d%%", *r.ContextPct))
	}
	if r.Tokens != nil {
		parts = append(parts, fmt.Sprintf("%d tokens", *r.Tokens))
	}
	if r.Model != "" {
		parts = append(parts, r.Model)
	}
	return strings.Join(parts, ", ")
}

func claim(ev Event, panes []Pane) (*Plan, error) {
	a := ev.Agent
	if a == nil || a.Hooks == nil {
		return &Plan{Why: "no manifest with hooks for this agent"}, nil
	}
	m := a.MapEvent(ev.Name, ev.Payload.Raw)
	sub := ev.Payload.SubagentID
	isSubStart, isSubStop := ev.Name == "SubagentStart", ev.Name == "SubagentStop"
	if m == nil && !(sub != "" && (isSubStart || isSubStop)) {
		return &Plan{Why: fmt.Sprintf("event %s is not mapped for %s", ev.Name, a.Name)}, nil
	}

	// The named pane is the target. Only a $TMUX_PANE that does not host
	// this agent (a shared agent daemon runs hooks with the pane it was
	// started from), is registered to another session, or is not on this
	// server, gives way to the pane that registered the event's session.
	// A lifecycle start whose agent process the hook found above itself
	// inside the named pane (ev.AgentPID) is that pane's whatever stands
	// registered: the agent runs there (a session resumed in a new pane),
	// and a shared daemon's hook, which runs outside every pane's tree,
	// never has one.
	target := ev.Pane
	var cur *Pane
	for i := range panes {
		if panes[i].ID == ev.Pane {
			cur = &panes[i]
		}
	}
	owns := m != nil && m.Claim.Lifecycle == "start" && ev.AgentPID > 0
	hosts := cur != nil && (owns || cur.Name == a.Name && (cur.Session == "" || ev.Payload.Session == "" || cur.Session == ev.Payload.Session))
	if !ev.Explicit && !hosts && ev.Payload.Session != "" {
		for i := range panes {
			if p := &panes[i]; p.Session == ev.Payload.Session && p.Name == a.Name {
				target, cur = p.ID, p
				break
			}
		}
	}
	if cur == nil || !tmux.ValidPaneID(target) {
		return &Plan{Why: fmt.Sprintf("pane %q is not on this server", ev.Pane)}, nil
	}
	pl := &Plan{Pane: target}
	T := strconv.FormatInt(ev.NowMS, 10)
	line := func(guard string, sets []tmux.Set) error {
		// A pane the user opted out (@agent_ignore) is never written.
		if guard == "" {
			guard = notIgnored
		} else {
			guard = "#{&&:" + notIgnored + "," + guard + "}"
		}
		l, err := tmux.Write{Pane: target, Guard: guard, Sets: sets}.Line()
		if err != nil {
			return err
		}
		pl.Lines = append(pl.Lines, l)
		return nil
	}

	// Subagent bookkeeping: a subagent's events never write the parent's state.
	if sub != "" {
		ids := strings.Fields(cur.Subagents)
		switch {
		case isSubStart && !contains(ids, sub):
			ids = append(ids, sub)
		case isSubStop:
			ids = remove(ids, sub)
		default:
			pl.Why = "event from subagent " + sub + ": bookkeeping only"
			return pl, nil
		}
		set := tmux.Set{Name: "@agent_subagents", Value: strings.Join(ids, " ")}
		if len(ids) == 0 {
			set = tmux.Set{Name: "@agent_subagents", Unset: true}
		}
		pl.Why = "subagent " + sub + " bookkeeping"
		return pl, line("", []tmux.Set{set})
	}

	registered := cur.Session != "" && cur.Name == a.Name
	sameSession := ev.Payload.Session == "" || !registered || ev.Payload.Session == cur.Session
	switch m.Claim.Lifecycle {
	case "start":
		sets := []tmux.Set{{Name: "@agent_name", Value: a.Name}}
		if ev.Payload.Session != "" {
			sets = append(sets, tmux.Set{Name: "@agent_session", Value: ev.Payload.Session})
		}
		sets = append(sets, tmux.Set{Name: "@agent_pid", Value: strconv.Itoa(ev.AgentPID)})
		if ev.Payload.Transcript != "" {
			sets = append(sets, tmux.Set{Name: "@agent_transcript", Value: ev.Payload.Transcript})
		}
		if cur.Subagents != "" {
			sets = append(sets, tmux.Set{Name: "@agent_subagents", Unset: true})
		}
		if a.Name == APILaneAgent && ev.Payload.APIEndpoint != "" {
			sets = append(sets, tmux.Set{Name: EndpointOption, Value: ev.Payload.APIEndpoint})
		}
		// One session, one pane: another pane still registered to it gives
		// it up, its set cleared as at the session's end.
		moved, err := unregister(panes, target, a.Name, ev.Payload.Session)
		if err != nil {
			return nil, err
		}
		pl.Lines = append(pl.Lines, moved...)
		if err := line("", sets); err != nil {
			return nil, err
		}
		if err := handover(pl, a.Name, ""); err != nil {
			return nil, err
		}
		// A pane with no state yet starts idle: the agent sits at its prompt.
		pl.Why = "registered " + a.Name
		if len(moved) > 0 {
			pl.Why += " (the session's registration moved here)"
		}
		return pl, line("#{==:#{@agent_state},}", claimSets(a.Name, "idle", "", T, false, ev.Payload, false, laneSet{}))
	case "end":
		if !sameSession {
			pl.Why = "session end of another session"
			return pl, nil
		}
		sets := endSets()
		pl.Why = "session ended: stamps cleared"
		guard := ""
		if ev.Payload.Session != "" {
			guard = "#{||:#{==:#{@agent_session},},#{==:#{@agent_session}," + ev.Payload.Session + "}}"
		}
		return pl, line(guard, sets)
	}

	if !sameSession {
		pl.Why = fmt.Sprintf("event from session %s, pane registered to %s: not this pane's agent", ev.Payload.Session, cur.Session)
		return pl, nil
	}
	state, detail := m.Claim.State, a.NormalizeDetail(m.Claim.Detail)
	// Newer than the stored evidence, or that evidence is dated in the
	// future (a backward clock step) and so settled.
	newer := "#{||:#{e|<:#{@agent_evidence_at}," + T + "}," + tmux.FromTheFuture(ev.NowMS) + "}"
	// Attention is raised on entering blocked and on a turn's end (done,
	// even idle to idle); it is written before the tuple so its guard sees
	// the state the event changes.
	switch {
	case m.TurnEnd:
		dedup := "#{&&:" + newer + ",#{e|>=:#{e|-:" + T + ",#{@agent_turn_at}}," + strconv.Itoa(TurnDedupMS) + "}}"
		if err := line(dedup, []tmux.Set{{Name: "@agent_attention", Value: "1"}, {Name: "@agent_turn_at", Value: T}}); err != nil {
			return nil, err
		}
	case state == "blocked":
		if err := line("#{&&:"+newer+",#{!=:#{@agent_state},blocked}}", []tmux.Set{{Name: "@agent_attention", Value: "1"}}); err != nil {
			return nil, err
		}
	case state == "idle":
		// Blocked to idle by an event that is no turn's end (Codex's
		// Interrupt when a prompt is rejected with Esc): the prompt went
		// with no work after it, and a turn that never worked is not done.
		// The mark was the block's; the fold retires it the same way when
		// the screen shows the move (architecture.md).
		if err := line("#{&&:"+newer+",#{==:#{@agent_state},blocked}}", []tmux.Set{{Name: "@agent_attention", Unset: true}}); err != nil {
			return nil, err
		}
	}
	// Only a lifecycle start registers a session: a pane that never saw one
	// (Codex with only its notify channel wired) takes every event, since the
	// first turn-complete may well be a side thread's.
	// A prompt that holds stamps its request id; any other claim of the
	// lane's agent, a prompt with the lane off included, unsets a stale one
	// (an expired hold's, or a killed hook's).
	var ls laneSet
	if hold, clear := Lane(a, ev.Name, ev.Payload); hold && ev.Request != "" {
		ls.request = ev.Request
	} else if clear || hold {
		ls.clear = true
	}
	if a.Name == APILaneAgent {
		ls.api = apiLane(state, ev.Payload)
	}
	sets := claimSets(a.Name, state, detail, T, state == "blocked", ev.Payload, true, ls)
	pl.Why = fmt.Sprintf("%s → %s%s", ev.Name, state, slash(detail))
	if err := line(newer, sets); err != nil {
		return nil, err
	}
	// Under the claim's own guard: a stale event takes nothing.
	return pl, handover(pl, a.Name, newer)
}

// handover puts, ahead of the plan's last line (a write that names the pane
// for agent) and on that same line, the write that drops what another
// agent reported on the pane (telemetry.Handover): on a pane tma may write,
// under guard ("" for none) and only where the pane is named for another
// agent, so a pane respawned as another agent keeps no gauge, and no
// context_high marker, of the one before. On the claim's own line it costs
// no line of its own.
func handover(pl *Plan, agent, guard string) error {
	hand, drop := telemetry.Handover(agent)
	if guard != "" {
		hand = "#{&&:" + guard + "," + hand + "}"
	}
	l, err := tmux.Write{Pane: pl.Pane, Guard: "#{&&:" + notIgnored + "," + hand + "}", Sets: drop}.Line()
	if err != nil {
		return err
	}
	pl.Lines[len(pl.Lines)-1] = l + " ; " + pl.Lines[len(pl.Lines)-1]
	return nil
}

// endSets unset a pane's whole set but what survives a session's end.
func endSets() []tmux.Set {
	var sets []tmux.Set
	for _, o := range tmux.OptionNames {
		if !keptOnEnd[o] {
			sets = append(sets, tmux.Set{Name: o, Unset: true})
		}
	}
	return sets
}

// unregister clears every pane but target that is registered to session
// for agent, each only while it still is (the guard is read at write time),
// with its rollups after the clear.
func unregister(panes []Pane, target, agent, session string) ([]string, error) {
	if session == "" {
		return nil, nil
	}
	var lines []string
	for _, p := range panes {
		if p.ID == target || p.Session != session || p.Name != agent || !tmux.ValidPaneID(p.ID) {
			continue
		}
		guard := "#{&&:" + notIgnored + ",#{==:#{@agent_session}," + session + "}}"
		l, err := tmux.Write{Pane: p.ID, Guard: guard, Sets: endSets()}.Line()
		if err != nil {
			return nil, err
		}
		r, err := stamp.RollupLine(p.ID)
		if err != nil {
			return nil, err
		}
		lines = append(lines, l+" ; "+r)
	}
	return lines, nil
}

// notIgnored holds on every pane tma may write: not one carrying
// @agent_ignore, nor one whose @agent_state another tool wrote outside the
// closed set (that pane is out of every tma surface, its options left alone).
const notIgnored = "#{&&:#{==:#{@agent_ignore},},#{m/r:^(working|blocked|idle|unknown)?$,#{@agent_state}}}"

// keptOnEnd survive a session's end, as they survive an agent's exit.
var keptOnEnd = map[string]bool{"@agent_action": true, "@agent_mute_until": true, "@tma_watch_pid": true, "@agent_ignore": true}

// laneSet is a claim's part in the reply lane: stamp a request id, or
// unset the one the pane carries.
type laneSet struct {
	request string
	clear   bool
	api     []tmux.Set // the OpenCode API lane's ids and endpoint
}

// apiLane is what an OpenCode claim writes for the API lane: a blocked
// claim names the request it waits on (a permission or a question), any
// other claim drops both ids (the request was answered or withdrawn), and
// whatever claim carries the plugin's endpoint refreshes it.
func apiLane(state string, p Payload) []tmux.Set {
	var sets []tmux.Set
	if p.APIEndpoint != "" {
		sets = append(sets, tmux.Set{Name: EndpointOption, Value: p.APIEndpoint})
	}
	switch {
	case state == "blocked" && p.PermissionID != "":
		sets = append(sets, tmux.Set{Name: RequestOption, Value: p.PermissionID}, tmux.Set{Name: QuestionOption, Unset: true})
	case state == "blocked" && p.QuestionID != "":
		sets = append(sets, tmux.Set{Name: QuestionOption, Value: p.QuestionID}, tmux.Set{Name: RequestOption, Unset: true})
	case state != "blocked":
		sets = append(sets, tmux.Set{Name: RequestOption, Unset: true}, tmux.Set{Name: QuestionOption, Unset: true})
	}
	return sets
}

// claimSets is one hook claim's tuple, @agent_stamped_at last.
func claimSets(name, state, detail, T string, pending bool, p Payload, clearPending bool, ls laneSet) []tmux.Set {
	sets := []tmux.Set{
		{Name: "@agent_since", Format: true, Value: "#{?#{==:#{@agent_state}," + state + "},#{@agent_since}," + T + "}"},
		{Name: "@agent_name", Value: name},
		{Name: "@agent_state", Value: state},
	}
	if detail != "" {
		sets = append(sets, tmux.Set{Name: "@agent_detail", Value: detail})
	} else {
		sets = append(sets, tmux.Set{Name: "@agent_detail", Unset: true})
	}
	sets = append(sets,
		tmux.Set{Name: "@agent_source", Value: "hook"},
		tmux.Set{Name: "@agent_evidence_at", Value: T},
		tmux.Set{Name: "@tma_idle_since", Unset: true},
		tmux.Set{Name: "@tma_unblock_seen", Unset: true},
	)
	if p.Transcript != "" {
		sets = append(sets, tmux.Set{Name: "@agent_transcript", Value: p.Transcript})
	}
	switch {
	case pending && p.Tool != "":
		sets = append(sets, tmux.Set{Name: "@agent_pending_tool", Value: p.Tool})
		sets = append(sets, optional("@agent_pending_call", p.Call), optional("@agent_pending_summary", p.Summary))
	case clearPending && !pending:
		for _, o := range []string{"@agent_pending_tool", "@agent_pending_call", "@agent_pending_summary"} {
			sets = append(sets, tmux.Set{Name: o, Unset: true})
		}
	}
	switch {
	case ls.request != "":
		sets = append(sets, tmux.Set{Name: RequestOption, Value: ls.request})
	case ls.clear:
		sets = append(sets, tmux.Set{Name: RequestOption, Unset: true})
	}
	sets = append(sets, ls.api...)
	return append(sets, tmux.Set{Name: "@agent_stamped_at", Value: T})
}

func optional(name, v string) tmux.Set {
	if v == "" {
		return tmux.Set{Name: name, Unset: true}
	}
	return tmux.Set{Name: name, Value: v}
}

func slash(d string) string {
	if d == "" {
		return ""
	}
	return "/" + d
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func remove(xs []string, s string) []string {
	out := xs[:0]
	for _, x := range xs {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
