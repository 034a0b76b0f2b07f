package stamp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/telemetry"
	"github.com/tmaproject/tma/lib/tmux"
)

// Kept survive an agent's exit: a pending action lock, a mute, a watcher's
// pid. @agent_ignore is the user's and never touched.
var Kept = map[string]bool{"@agent_action": true, "@agent_mute_until": true, "@tma_watch_pid": true, "@agent_ignore": true}

// LastPollEveryMS bounds how stale the ambient-driver hint may get before a
// cycle with nothing else to write pays one write for it.
const LastPollEveryMS = 30_000

// Plan is one cycle's commit: the source-file lines and the resulting rows.
type Plan struct {
	Lines []string
	Rows  []*record.Row
}

// Build plans the commit of a folded cycle. lastPoll is the stored
// @tma_last_poll (0 when absent).
func Build(cyc *record.Cycle, panes []*record.Pane, lastPoll int64) (*Plan, error) {
	pl := &Plan{}
	type roll struct {
		have   string
		counts map[string]int
		target string
	}
	windows, sessions := map[string]*roll{}, map[string]*roll{}
	for _, p := range panes {
		v := p.Verdict
		if v == nil {
			continue
		}
		if !cyc.Scoped {
			if windows[p.WindowID] == nil {
				windows[p.WindowID] = &roll{have: p.WindowSummary, counts: map[string]int{}, target: p.WindowID}
			}
			if sessions[p.SessionID] == nil {
				sessions[p.SessionID] = &roll{have: p.SessionSummary, counts: map[string]int{}, target: p.SessionID}
			}
		}
		line, err := paneWrite(cyc, p, v)
		if err != nil {
			return nil, fmt.Errorf("pane %s: %v", p.Pane, err)
		}
		if line != "" {
			pl.Lines = append(pl.Lines, line)
		}
		row := Row(cyc, p, v)
		if row == nil {
			continue
		}
		pl.Rows = append(pl.Rows, row)
		if !cyc.Scoped {
			windows[p.WindowID].counts[row.Row.State]++
			sessions[p.SessionID].counts[row.Row.State]++
		}
	}
	for _, set := range []struct {
		scope, name string
		m           map[string]*roll
	}{{"window", "@agent_summary", windows}, {"session", "@agent_session_summary", sessions}} {
		keys := make([]string, 0, len(set.m))
		for k := range set.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r := set.m[k]
			want := Summary(r.counts)
			if want == r.have || r.target == "" {
				continue
			}
			line, err := tmux.ScopedSet(set.scope, r.target, set.name, want)
			if err != nil {
				return nil, err
			}
			pl.Lines = append(pl.Lines, line)
		}
	}
	if len(pl.Lines) > 0 || cyc.NowMS-lastPoll >= LastPollEveryMS {
		line, _ := tmux.ServerSet("@tma_last_poll", strconv.FormatInt(cyc.NowMS, 10))
		pl.Lines = append(pl.Lines, line)
	}
	return pl, nil
}

// RollupLine recomputes a pane's window and session rollups server-side, in
// Summary's grammar and order, from the tuples as they stand when tmux runs
// it: what a hook writes after its claim, so #{@agent_summary} never lags a
// hook until the next cycle (a cycle writes the counts it folded instead).
//
// tmux formats have no variables, and a loop over the session's panes is
// the dear part (every hook pays it, at about 2.5 ms of server time at 40
// panes when each state ran its own loops), so each scope's loop runs once:
// it writes one letter per agent pane (b, w, i, u; nothing for a pane with
// no name or a state outside the four) into a scratch option, the counts
// are read off that string, "state:0" entries are cut, and the scratch is
// unset, all in the same command line.
func RollupLine(pane string) (string, error) {
	if !tmux.ValidPaneID(pane) {
		return "", fmt.Errorf("invalid pane id %q", pane)
	}
	letter := "#{?@agent_name,"
	for _, s := range record.States {
		letter += "#{?#{==:#{@agent_state}," + s + "}," + s[:1] + ","
	}
	letter += strings.Repeat("}", len(record.States)) + ",}"
	counts := ""
	for i, s := range record.States {
		if i > 0 {
			counts += " "
		}
		counts += s + ":#{n:#{s/[^" + s[:1] + "]//:#{" + rollScratch + "}}}"
	}
	// "[a-z]+.0( |$)": the "." is the colon, which a format modifier's
	// arguments cannot hold.
	summary := tmux.Quote("#{s/ $//:#{s/[a-z]+.0( |$)//:" + counts + "}}")
	return "set -wF -t " + pane + " " + rollScratch + " " + tmux.Quote("#{P:"+letter+"}") +
		" ; set -wF -t " + pane + " @agent_summary " + summary +
		" ; set -wu -t " + pane + " " + rollScratch +
		" ; set -F -t " + pane + " " + rollScratch + " " + tmux.Quote("#{W:#{P:"+letter+"}}") +
		" ; set -F -t " + pane + " @agent_session_summary " + summary +
		" ; set -u -t " + pane + " " + rollScratch, nil
}

// rollScratch holds a scope's letters while RollupLine counts them.
const rollScratch = "@tma_rollup"

// WithStatusRun adds, to a cycle `tma status` committed, its own mark
// @tma_status_at (doctor's ambient line: the status-line driver, apart from
// any ls, picker or watch), at most once per LastPollEveryMS like
// @tma_last_poll, so a warm status line stays write-free between marks.
func WithStatusRun(cyc *record.Cycle, lines []string) []string {
	if cyc.NowMS-cyc.LastStatusMS < LastPollEveryMS {
		return lines
	}
	l, _ := tmux.ServerSet("@tma_status_at", strconv.FormatInt(cyc.NowMS, 10))
	return append(lines, l)
}

// Summary renders <state>:<count> pairs in the fixed order (blocked first,
// the order of the status line), zeros omitted.
func Summary(counts map[string]int) string {
	var parts []string
	for _, s := range record.States {
		if n := counts[s]; n > 0 {
			parts = append(parts, s+":"+strconv.Itoa(n))
		}
	}
	return strings.Join(parts, " ")
}

func n(v int64) string { return strconv.FormatInt(v, 10) }

// guard holds while nothing newer than what the fold read has been stamped:
// no evidence newer than GuardAt, and no stamp from a later cycle.
// A tuple dated in the future (a backward clock step) is settled and
// overwritten rather than guarded.
func guard(v *record.Verdict, now int64) string {
	return "#{||:" + tmux.FromTheFuture(now) + ",#{&&:#{e|<=:#{@agent_evidence_at}," + n(v.GuardAt) + "},#{e|<:#{@agent_stamped_at}," + n(now) + "}}}"
}

func paneWrite(cyc *record.Cycle, p *record.Pane, v *record.Verdict) (string, error) {
	prior := record.ParsePrior(p.Opts)
	now := cyc.NowMS
	// stamped_at is written last and never older than what it stamps, so a
	// reader seeing stamped_at < evidence_at knows a write is in flight.
	stampAt := max(now, v.EvidenceAt, v.Since)
	var sets []tmux.Set
	idle := func() {
		for _, a := range record.AnchorNames {
			want, have := v.Anchors[a], prior.Anchor(a)
			switch {
			case want > 0 && want != have:
				sets = append(sets, tmux.Set{Name: a, Value: n(want)})
			case want == 0 && have != 0:
				sets = append(sets, tmux.Set{Name: a, Unset: true})
			}
		}
	}
	attn := func() {
		if v.SetAttention {
			sets = append(sets, tmux.Set{Name: "@agent_attention", Value: "1"})
		} else if v.ClearAttn {
			sets = append(sets, tmux.Set{Name: "@agent_attention", Unset: true})
		}
	}
	switch v.Action {
	case record.ActClear:
		for _, o := range tmux.OptionNames {
			if _, ok := p.Opts[o]; ok && !Kept[o] {
				sets = append(sets, tmux.Set{Name: o, Unset: true})
			}
		}
		if len(sets) == 0 {
			return "", nil
		}
		// Clear only if nobody stamped since we listed (a hook registering a
		// freshly started agent must not be wiped).
		return tmux.Write{Pane: p.Pane, Guard: "#{e|<=:#{@agent_stamped_at}," + n(prior.StampedAt) + "}", Sets: sets}.Line()
	case record.ActHold:
		idle()
		attn()
		if v.Refresh && p.Capture != nil {
			if prior.Name != p.Agent {
				sets = append(sets, tmux.Set{Name: "@agent_name", Value: p.Agent})
			}
			sets = append(sets, hashSet(p)...)
			sets = append(sets, tmux.Set{Name: "@agent_stamped_at", Value: n(max(now, p.Capture.AtMS))})
		}
		if len(sets) == 0 {
			return "", nil
		}
		return handover(p, prior, guard(v, now), tmux.Write{Pane: p.Pane, Guard: guard(v, now), Sets: sets})
	case record.ActPublish:
		if !record.ValidState(v.State) {
			return "", fmt.Errorf("refusing to write state %q", v.State)
		}
		switch {
		case !v.EpisodeReset:
			// The same state run goes on: its since stays as stored.
		case prior.Since-prior.StampedAt > 2000:
			// A backward clock step stranded since in the future: rewrite.
			sets = append(sets, tmux.Set{Name: "@agent_since", Value: n(v.Since)})
		default:
			// Write-once per state run, decided by tmux at write time: a
			// concurrent producer that already opened this run keeps its since.
			sets = append(sets, tmux.Set{Name: "@agent_since", Format: true,
				Value: "#{?#{==:#{@agent_state}," + v.State + "},#{@agent_since}," + n(v.Since) + "}"})
		}
		sets = append(sets,
			tmux.Set{Name: "@agent_name", Value: p.Agent},
			tmux.Set{Name: "@agent_state", Value: v.State},
		)
		if v.Detail != "" {
			sets = append(sets, tmux.Set{Name: "@agent_detail", Value: v.Detail})
		} else if prior.Detail != "" {
			sets = append(sets, tmux.Set{Name: "@agent_detail", Unset: true})
		}
		sets = append(sets,
			tmux.Set{Name: "@agent_source", Value: v.Source},
			tmux.Set{Name: "@agent_evidence_at", Value: n(v.EvidenceAt)},
		)
		if p.Identity == "process" && prior.PID != p.AgentPID {
			sets = append(sets, tmux.Set{Name: "@agent_pid", Value: strconv.Itoa(p.AgentPID)})
		}
		if p.Capture != nil {
			sets = append(sets, hashSet(p)...)
		}
		idle()
		attn()
		sets = append(sets, tmux.Set{Name: "@agent_stamped_at", Value: n(stampAt)})
		return handover(p, prior, guard(v, now), tmux.Write{Pane: p.Pane, Guard: guard(v, now), Sets: sets})
	}
	return "", nil
}

// handover renders w, a pane's write, and where w names the pane for an
// agent other than the one it is named for and the pane holds what that
// one reported, puts ahead of it on the same line the write that drops
// those readings and their context_high marker (telemetry.Handover):
// under w's own guard and, checked by tmux as the line runs, only while the
// pane is still named for another agent. A pane respawned as another agent
// keeps no gauge of the one before.
func handover(p *record.Pane, prior record.Prior, g string, w tmux.Write) (string, error) {
	l, err := w.Line()
	if err != nil || prior.Name == "" || prior.Name == p.Agent || !renames(w, p.Agent) {
		return l, err
	}
	held := false
	for _, o := range telemetry.Options {
		if _, ok := p.Opts[o]; ok {
			held = true
		}
	}
	if !held {
		return l, nil
	}
	hand, drop := telemetry.Handover(p.Agent)
	h, err := tmux.Write{Pane: p.Pane, Guard: "#{&&:" + g + "," + hand + "}", Sets: drop}.Line()
	if err != nil {
		return "", err
	}
	return h + " ; " + l, nil
}

// renames reports whether w writes @agent_name = agent.
func renames(w tmux.Write, agent string) bool {
	for _, s := range w.Sets {
		if s.Name == "@agent_name" && !s.Unset && s.Value == agent {
			return true
		}
	}
	return false
}

// hashSet is the @agent_hash write of a commit that read the pane's
// screen: the digest of the manifest that read it (the scan's skip rule
// reads the screen again once that manifest changes), or, where the record
// names none, the bare presence mark "1" if the option is missing.
func hashSet(p *record.Pane) []tmux.Set {
	have, ok := p.Opts["@agent_hash"]
	switch {
	case p.Manifest != "" && have != p.Manifest:
		return []tmux.Set{{Name: "@agent_hash", Value: p.Manifest}}
	case p.Manifest == "" && !ok:
		return []tmux.Set{{Name: "@agent_hash", Value: "1"}}
	}
	return nil
}

// Row resolves the agent row a pane has after this cycle's commit, or nil
// for a pane that is not an agent pane.
func Row(cyc *record.Cycle, p *record.Pane, v *record.Verdict) *record.Row {
	if p.Agent == "" || v == nil || v.State == "" || v.Action == record.ActNone || v.Action == record.ActClear {
		return nil
	}
	o := p.Opts
	prior := record.ParsePrior(o)
	attention := prior.Attention
	if v.SetAttention {
		attention = true
	} else if v.ClearAttn {
		attention = false
	}
	since := v.Since
	episode := since
	if prior.TurnAt > episode {
		episode = prior.TurnAt
	}
	stamped := prior.StampedAt
	switch {
	case v.Action == record.ActPublish:
		stamped = max(cyc.NowMS, v.EvidenceAt, v.Since)
	case v.Refresh && p.Capture != nil:
		stamped = max(cyc.NowMS, p.Capture.AtMS)
	}
	r := record.AgentRow{
		Pane: p.Pane, Agent: p.Agent, State: v.State, Detail: str(v.Detail),
		Since: i64(since), SinceMS: i64(since), EpisodeMS: i64(episode),
		Locator: p.Locator(), Title: p.Title, Attention: attention,
		Done:    v.State == "idle" && attention,
		Session: str(o["@agent_session"]), Transcript: str(o["@agent_transcript"]),
		PermissionRequest: str(o["@agent_permission_request"]), StampedAtMS: i64(stamped),
		Context: num(o["@agent_context_pct"]), ContextAtMS: num(o["@agent_context_at"]),
		Muted: prior.MuteUntil > cyc.NowMS, Tokens: num(o["@agent_tokens"]),
		CostUSD:     float(o["@agent_cost_usd"]),
		PendingTool: str(o["@agent_pending_tool"]), PendingCall: str(o["@agent_pending_call"]),
		PendingSummary: str(o["@agent_pending_summary"]),
		Server:         cyc.Server, Host: cyc.Host,
	}
	if pct := num(o["@agent_quota_pct"]); pct != nil {
		r.Quota = &record.Quota{Pct: *pct, Window: o["@agent_quota_window"], ResetsAt: num(o["@agent_quota_resets_at"]), AtMS: num(o["@agent_quota_at"])}
	}
	return &record.Row{NowMS: cyc.NowMS, Row: r, TmuxSession: p.Session, Window: p.Window, Index: p.Index, CWD: p.CWD, Active: p.Active, Source: v.Source,
		DoneCleared: prior.State == "idle" && prior.Attention && !r.Done}
}

func str(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func i64(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func num(s string) *int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	return &v
}

func float(s string) *float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil
	}
	return &v
}
