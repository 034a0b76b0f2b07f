package fold

import (
	"fmt"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/screen"
)

// Tuning is the [fold] section of the config, in seconds, and [daemon]
// demote_edges (0: no demotion; see demote.go).
type Tuning struct {
	DwellSecs        int
	HookDecaySecs    int
	BlockedDecaySecs int
	DemoteEdges      int
}

// DefaultTuning is the manual's defaults.
var DefaultTuning = Tuning{DwellSecs: 3, HookDecaySecs: 60, BlockedDecaySecs: 300, DemoteEdges: 5}

// ClockStepMS is how far @agent_since may run ahead of @agent_stamped_at
// before the tuple counts as settled under a backward clock step.
const ClockStepMS = 2000

// A hook claim the screen has moved past: agents fire no event for a reject
// or an interrupt made with Esc (Claude, Gemini), which would otherwise hold
// blocked until blocked_decay_secs and working until hook_decay_secs. The
// screen releases the claim when a capture at least UnblockGraceMS newer than
// the claim shows the other state's chrome, and a second capture
// UnblockConfirmMS or more later still does: two cycles (see releasable).
// The grace covers a screen drawn just after its hook fired.
const (
	UnblockGraceMS   = 1000
	UnblockConfirmMS = 500
)

// BackgroundDetail is the detail of a working claim made while the agent's
// turn has ended but work it started runs on in the background (Claude's
// Stop listing a running background task). The screen never releases or
// expires such a claim: between the turns the agent draws its idle prompt
// box, and only the agent's own next event (the Stop once the last task
// has ended) says the work is over.
const BackgroundDetail = "background"

// FutureSkewMS is how far past a capture a hook claim's evidence may be
// dated and still be a rival's write in flight: tmux.FutureSkewMS, which
// the stamp's and the hook's guards use (lib/scan's tests hold the two
// equal; the fold imports nothing that runs tmux). A claim dated later was
// made before a backward clock step.
const FutureSkewMS = 10_000

// RegReapMS is how long a registration with no pid may sit in a pane that
// holds nothing but a shell before it is reaped.
const RegReapMS = 30_000

// Decay returns the window after which a hook claim for state may be
// expired by contrary chrome.
func (t Tuning) Decay(state string) int64 {
	if state == "blocked" {
		return int64(t.BlockedDecaySecs) * 1000
	}
	return int64(t.HookDecaySecs) * 1000
}

type folder struct {
	p       *record.Pane
	a       *manifest.Agent
	t       Tuning
	prior   record.Prior
	v       *record.Verdict
	explain bool
	dem     demotion
}

func (f *folder) note(format string, args ...any) {
	if f.explain {
		f.v.Trace = append(f.v.Trace, fmt.Sprintf(format, args...))
	}
}

// Fold decides one pane. a is the pane's manifest (nil for a pane with no
// agent, or a registered agent with no loaded manifest). With explain, the
// verdict carries every rule tried and each step taken.
func Fold(p *record.Pane, a *manifest.Agent, t Tuning, explain bool) *record.Verdict {
	f := &folder{p: p, a: a, t: t, prior: record.ParsePrior(p.Opts), explain: explain}
	f.v = &record.Verdict{Action: record.ActNone}
	f.startDemotion()
	f.fold()
	f.keepDemotion()
	return f.v
}

func (f *folder) fold() {
	p, prior := f.p, f.prior
	if prior.Foreign != "" {
		// Another tool owns this pane's state with a vocabulary tma does not
		// share: the pane goes silent in every surface and nothing of it is
		// touched (the manual's second-writer contract). doctor names it.
		f.note("stored @agent_state %q is another tool's token: out of every tma surface, its options left alone", prior.Foreign)
		return
	}
	switch {
	case p.Class == record.ClassIgnored:
		f.note("@agent_ignore is set: out of detection")
		return
	case p.Class == record.ClassNested:
		f.note("foreground %s is a nested multiplexer: run tma on the inner server", p.Command)
		return
	case p.Procs < 0:
		f.keep("the process walk failed: nothing says who runs here, so every stored tuple stands as it is")
		return
	case p.Agent == "" && p.Class == record.ClassRemote:
		f.note("remote shell %s: stamps held, nothing captured", p.Command)
		return
	case p.Agent == "":
		if prior.Name != "" || prior.State != "" || prior.Foreign != "" {
			f.v.Action = record.ActClear
			f.v.Winning = record.Evidence{Source: "process", At: p.NowMS, Label: "agent process gone"}
			f.note("no agent in the pane any more: clear its stamps")
		}
		return
	case p.Class == record.ClassRemote:
		f.hold("registered behind remote shell "+p.Command+": hook events are its only evidence", false)
		return
	case p.Identity == "hook" && p.AgentPID == 0 && p.ShellOnly:
		dead := prior.RegDeadSince
		if dead == 0 || dead > p.NowMS {
			dead = p.NowMS
		}
		if p.NowMS-dead >= RegReapMS {
			f.v.Action = record.ActClear
			f.v.Winning = record.Evidence{Source: "process", At: p.NowMS, Label: "pid-less registration in a bare shell, reaped"}
			f.note("registration with no pid has held only a shell for %ds: reaped", (p.NowMS-dead)/1000)
			return
		}
		f.hold(fmt.Sprintf("pid-less registration in a bare shell for %dms of %ds", p.NowMS-dead, RegReapMS/1000), false)
		f.anchor("@tma_reg_dead_since", dead)
		return
	}

	hookClaim := prior.Source == "hook" && prior.State != ""
	if !p.ForegroundIsAgent {
		if hookClaim && p.AgentAlive {
			f.hold(fmt.Sprintf("foreground %s is not the agent; the hook claim stands while the agent pid lives", p.Command), false)
			return
		}
		f.decide("unknown", "", "process", p.NowMS, fmt.Sprintf("foreground %s is not the agent", p.Command), 0)
		return
	}
	if p.Scroll > 0 {
		f.hold(fmt.Sprintf("viewport scrolled (scroll_position=%d): frozen", p.Scroll), false)
		return
	}
	if p.Capture == nil {
		f.hold("no capture this cycle ("+orDash(p.CaptureSkipped)+"): the stored verdict stands", false)
		return
	}
	if f.a == nil {
		f.hold("no manifest loaded for "+p.Agent+": screen rules unavailable", true)
		return
	}

	at := p.Capture.AtMS
	scr := screen.Screen{Raw: p.Capture.Text, Title: p.Title, Height: p.Height}
	results := f.a.Evaluate(scr)
	if f.explain {
		// The mode the screen names ([[modes]]): shown, never decisive.
		if m, line := f.a.ScreenMode(scr); m != "" {
			f.note("mode %s: the screen names it («%s»)", m, line)
		}
		for _, r := range results {
			f.v.Rules = append(f.v.Rules, record.RuleTrace{Index: r.Rule.Index, State: r.Rule.State,
				Detail: r.Rule.Detail, Priority: r.Rule.Priority, Region: r.Rule.Region,
				Label: ruleLabel(r.Rule), Matched: r.Matched, Excerpt: r.Excerpt})
		}
	}
	best, skip := manifest.Decide(results)
	if skip {
		f.v.HistoryView = true
		f.hold("a history view is on screen (skip_state_update): frozen", true)
		return
	}
	state, detail, label := "", "", ""
	if best != nil {
		state, detail, label = best.Rule.State, best.Rule.Detail, "rule "+ruleLabel(best.Rule)
	}

	if hookClaim && f.demoted(state, at) {
		hookClaim = false
		f.v.MayOverride = true
	}
	if hookClaim {
		f.v.MayOverride = false
		// A claim dated in the future was stamped before the clock stepped
		// back. The list that read it ran before this capture, so it is the
		// older evidence, and its true age is unknown: it counts as just past
		// the release grace, so blocker chrome lands at once and a release
		// takes its two cycles, while the decay window (an age the claim may
		// not have) does not expire it.
		claimAt := prior.EvidenceAt
		if claimAt > at+FutureSkewMS {
			claimAt = at - UnblockGraceMS
			f.note("the %s claim is dated %ds after this capture (the clock stepped back): read as %dms old", prior.State, (prior.EvidenceAt-at)/1000, UnblockGraceMS)
		}
		switch {
		case state == "blocked" && prior.State != "blocked" && claimAt < at:
			// The T0/T1 race: a capture newer than the claim shows blocker
			// chrome, so the block lands at once.
			f.v.MayOverride = true
			f.note("blocker chrome in a capture newer than the %s hook claim: overrides it", prior.State)
			f.decide(state, detail, "capture", at, label, at-1)
		case state != "" && state != prior.State && at-claimAt > f.t.Decay(prior.State) && f.a.IsVisible(prior.State) && !f.background():
			f.v.MayOverride = true
			f.note("hook claim %s is %ds old (window %ds), the manifest sees %s on screen, and the screen shows %s: expired",
				prior.State, (at-claimAt)/1000, f.t.Decay(prior.State)/1000, prior.State, state)
			f.decide(state, detail, "capture", at, label, prior.EvidenceAt)
		case f.releasable(prior.State, state) && at-claimAt >= UnblockGraceMS:
			seen := prior.UnblockSeen
			if seen == 0 || seen > at {
				seen = at
			}
			if at-seen < UnblockConfirmMS {
				f.hold(fmt.Sprintf("%s claim but %s chrome on screen: confirming on the next cycle", prior.State, state), true)
				f.anchor("@tma_unblock_seen", seen)
				return
			}
			f.v.MayOverride = true
			f.note("the %s claim's screen is gone (answered, dismissed or interrupted with no event) and %s chrome is on screen: released", prior.State, state)
			f.decide(state, detail, "capture", at, label, prior.EvidenceAt)
		case f.releasable(prior.State, state):
			// Inside the grace: the release chrome may be a screen drawn
			// before the claim's own dialog, or an answer that fired no
			// event. Its sighting starts the confirmation, so the first
			// capture past the grace releases (two cycles from the answer,
			// not three), and blocker chrome by then drops it (default).
			// stamped_at stays: refreshed, it would let the skip rule call
			// the next cycle's screen quiet, and the claim would hold until
			// the agent next repainted (seen in the lab: a question dismissed
			// with Esc read blocked for three cycles).
			seen := prior.UnblockSeen
			if seen == 0 || seen > at {
				seen = at
			}
			f.hold(fmt.Sprintf("%s claim %dms old and %s chrome on screen: confirming past the %dms grace", prior.State, at-claimAt, state, UnblockGraceMS), false)
			f.anchor("@tma_unblock_seen", seen)
		default:
			if f.background() && state == "idle" {
				f.hold("working/background claim: the agent's own Stop ends it, its idle prompt box between turns does not", true)
				return
			}
			f.hold(fmt.Sprintf("hook claim %s holds (screen: %s)", prior.State, orDash(state)), true)
		}
		return
	}

	switch state {
	case "blocked", "working":
		f.decide(state, detail, "capture", at, label, prior.EvidenceAt)
	case "idle":
		if prior.State == "working" && f.t.DwellSecs > 0 {
			anchor := prior.IdleSince
			if anchor == 0 || anchor > at {
				anchor = at
			}
			if at-anchor < int64(f.t.DwellSecs)*1000 {
				f.hold(fmt.Sprintf("idle chrome for %dms of the %ds dwell: working holds", at-anchor, f.t.DwellSecs), true)
				f.anchor("@tma_idle_since", anchor)
				return
			}
			f.note("idle chrome has lasted the %ds dwell", f.t.DwellSecs)
		}
		f.decide(state, detail, "capture", at, label, prior.EvidenceAt)
	default:
		if prior.State != "" {
			f.hold("no rule matched: the previous verdict holds", true)
			return
		}
		f.decide("unknown", "", "capture", at, "no rule matched and nothing to hold", prior.EvidenceAt)
	}
}

// decide publishes a state, or turns into a refreshing hold when the stored
// tuple already says the same thing.
func (f *folder) decide(state, detail, source string, at int64, label string, guard int64) {
	v, prior := f.v, f.prior
	v.Winning = record.Evidence{Source: source, At: at, Label: label}
	v.GuardAt = guard
	if state == prior.State && detail == prior.Detail && source == prior.Source {
		f.hold("same verdict as stored: "+label, true)
		v.Winning = record.Evidence{Source: source, At: at, Label: label}
		return
	}
	v.Action = record.ActPublish
	v.State, v.Detail, v.Source, v.EvidenceAt = state, detail, source, at
	v.Since = prior.Since
	if state != prior.State || v.Since == 0 || prior.Since-prior.StampedAt > ClockStepMS {
		v.EpisodeReset = true
		v.Since = at
	}
	if state != prior.State && (state == "blocked" || (state == "idle" && prior.State == "working")) {
		v.SetAttention = true
	}
	if state == "idle" && prior.State == "blocked" && prior.Attention {
		// The prompt went with no work after it (rejected, dismissed with
		// Esc, or approved for work too short for any cycle to see): a turn
		// that never worked is not done. The mark was the block's, and
		// nothing is left to review; a turn end the agent reports itself
		// (a hook's turn_end) raises done on its own.
		v.ClearAttn = true
		f.note("blocked to idle with no working between: not a turn's end, the block's attention mark is retired")
	}
	f.inputClear()
	f.note("publish %s%s from %s: %s", state, slashDetail(detail), source, label)
}

// releasable: a hook claim the screen may release within two cycles, for
// the transitions agents fire no event for. A blocked claim yields to any
// other chrome once its dialog is gone (a reject or an interrupt with Esc);
// a working claim yields to idle chrome (an interrupt with Esc), but only
// for an agent whose manifest sees idle on screen: Codex draws its idle
// composer while it streams. A background claim is never released.
func (f *folder) releasable(claim, screen string) bool {
	switch claim {
	case "blocked":
		return screen != "" && screen != "blocked" && f.a.IsVisible("blocked")
	case "working":
		return screen == "idle" && f.a.IsVisible("idle") && !f.background()
	}
	return false
}

// background: the stored claim is a hook's working/background.
func (f *folder) background() bool {
	return f.prior.State == "working" && f.prior.Detail == BackgroundDetail
}

// anchor keeps one of tma's internal clocks on the pane after this commit.
func (f *folder) anchor(name string, v int64) {
	if f.v.Anchors == nil {
		f.v.Anchors = map[string]int64{}
	}
	f.v.Anchors[name] = v
}

// hold keeps the stored tuple. refresh means a screen was read this cycle, so
// @agent_stamped_at moves on and the next cycle may skip the capture.
func (f *folder) hold(why string, refresh bool) {
	v, prior := f.v, f.prior
	v.Action = record.ActHold
	v.State, v.Detail, v.Source = prior.State, prior.Detail, prior.Source
	v.EvidenceAt, v.Since = prior.EvidenceAt, prior.Since
	v.GuardAt = prior.EvidenceAt
	v.Refresh = refresh
	if v.Winning.Label == "" {
		v.Winning = record.Evidence{Source: orDash(prior.Source), At: prior.EvidenceAt, Label: "held: " + why}
	}
	if prior.State == "" {
		// Nothing to hold: say unknown rather than nothing.
		v.Action = record.ActPublish
		v.State, v.Detail, v.Source, v.EvidenceAt = "unknown", "", "process", f.p.NowMS
		v.Since, v.EpisodeReset = f.p.NowMS, true
		v.GuardAt = prior.EvidenceAt
		v.Winning = record.Evidence{Source: "process", At: f.p.NowMS, Label: "nothing to hold: " + why}
	}
	f.inputClear()
	f.note("hold: %s", why)
}

// keep holds the stored tuple exactly as it is, for a cycle that cannot
// judge the pane at all: no stamp refresh, no attention clear, every anchor
// as stored, so the commit writes nothing. A pane with nothing stored (or
// no agent to show it under) gets no verdict.
func (f *folder) keep(why string) {
	v, prior := f.v, f.prior
	f.note("keep: %s", why)
	if prior.State == "" || f.p.Agent == "" {
		return
	}
	v.Action = record.ActHold
	v.State, v.Detail, v.Source = prior.State, prior.Detail, prior.Source
	v.EvidenceAt, v.Since, v.GuardAt = prior.EvidenceAt, prior.Since, prior.EvidenceAt
	v.Winning = record.Evidence{Source: orDash(prior.Source), At: prior.EvidenceAt, Label: "kept: " + why}
	for _, a := range record.AnchorNames {
		if x := prior.Anchor(a); x > 0 {
			f.anchor(a, x)
		}
	}
}

// inputClear retires attention once someone displaying the pane typed after
// the mark was raised (whole seconds: tmux keeps client activity in seconds).
//
// Input no later than the second of the pane's last `tma jump --next`
// arrival is not typing at this pane: a bound --next is itself a keystroke,
// which tmux records as the client's activity, and the client shows this
// pane by the next cycle. --next leaves attention untouched, so only input
// in a later second clears (a key pressed within the jump's own second is
// taken for the jump's; the next one clears).
func (f *folder) inputClear() {
	if !f.prior.Attention || f.v.SetAttention {
		return
	}
	act := f.p.ViewerActivity
	if act <= 0 || act <= f.prior.Since/1000 {
		return
	}
	if n := f.prior.NextAt; n > 0 && act <= n/1000 {
		f.note("the latest input of a client displaying the pane is no later than the tma jump --next that brought it (%d): attention kept", n)
		return
	}
	f.v.ClearAttn = true
	f.note("a client displaying the pane typed after the attention mark: cleared")
}

func ruleLabel(r *manifest.Rule) string {
	if r.Label != "" {
		return r.Label
	}
	return fmt.Sprintf("#%d %s%s", r.Index, r.State, slashDetail(r.Detail))
}

func slashDetail(d string) string {
	if d == "" {
		return ""
	}
	return "/" + d
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
