package telemetry

import (
	"strconv"

	"github.com/tmaproject/tma/lib/tmux"
)

// The pane options a reading stamps (docs/records.md's pane-option table).
const (
	OptContextPct    = "@agent_context_pct"
	OptContextAt     = "@agent_context_at"
	OptTokens        = "@agent_tokens"
	OptTokensAt      = "@agent_tokens_at"
	OptModel         = "@agent_model"
	OptQuotaPct      = "@agent_quota_pct"
	OptQuotaWindow   = "@agent_quota_window"
	OptQuotaResetsAt = "@agent_quota_resets_at"
	OptQuotaAt       = "@agent_quota_at"
	OptCostUSD       = "@agent_cost_usd"
)

// OptContextNotifiedAt is context_high's marker (lib/notify's
// MarkerContext): it closes one crossing of the pane's gauge, so it lives
// and goes with that gauge.
const OptContextNotifiedAt = "@agent_context_notified_at"

// Options are every option a reading stamps, and the marker of its gauge:
// what an agent leaves on its pane beside its state.
var Options = []string{OptContextPct, OptContextAt, OptTokens, OptTokensAt, OptModel, OptQuotaPct,
	OptQuotaWindow, OptQuotaResetsAt, OptQuotaAt, OptCostUSD, OptContextNotifiedAt}

// Handover is the write that goes before any write naming a pane for
// agent: where the pane is named for another agent, that agent's readings
// and its gauge's marker go, so no gauge outlives the agent that reported
// it (a pane respawned as another agent, or the new agent's hook naming
// it). The condition is tmux's, read when the line runs: a pane a rival
// already named for agent keeps what agent has reported since.
func Handover(agent string) (guard string, sets []tmux.Set) {
	for _, o := range Options {
		sets = append(sets, tmux.Set{Name: o, Unset: true})
	}
	return "#{&&:#{!=:#{@agent_name},},#{!=:#{@agent_name}," + agent + "}}", sets
}

// timeOpts are the evidence times a pane's readings are dated by.
var timeOpts = []string{OptContextAt, OptTokensAt, OptQuotaAt}

// Guard is the condition under which a reading dated atMS may be stamped:
// it is newer than every telemetry time the pane holds, so a payload that
// arrives late (the shim runs each one in the background) never overwrites
// a newer one and no time walks backwards. The one exception is a stored
// time more than tmux.FutureSkewMS ahead of atMS: a backward clock step,
// which would otherwise freeze the gauge until the clock caught up.
func Guard(atMS int64) string {
	t := strconv.FormatInt(atMS, 10)
	f := strconv.FormatInt(atMS+tmux.FutureSkewMS, 10)
	var newer, future string
	for i, o := range timeOpts {
		n := "#{e|<:#{" + o + "}," + t + "}"
		s := "#{e|>:#{" + o + "}," + f + "}"
		if i == 0 {
			newer, future = n, s
			continue
		}
		newer = "#{&&:" + newer + "," + n + "}" // tmux 3.3 takes two operands
		future = "#{||:" + future + "," + s + "}"
	}
	return "#{||:" + newer + "," + future + "}"
}

// Sets are the reading's assignments, dated atMS: each gauge with its own
// time, the model and the cost beside them. A field the reading does not
// carry is left as the pane has it (not reported is not zero).
func (r Reading) Sets(atMS int64) []tmux.Set {
	t := strconv.FormatInt(atMS, 10)
	var sets []tmux.Set
	if r.ContextPct != nil {
		sets = append(sets, tmux.Set{Name: OptContextPct, Value: strconv.FormatInt(*r.ContextPct, 10)}, tmux.Set{Name: OptContextAt, Value: t})
	}
	if r.Tokens != nil {
		sets = append(sets, tmux.Set{Name: OptTokens, Value: strconv.FormatInt(*r.Tokens, 10)}, tmux.Set{Name: OptTokensAt, Value: t})
	}
	if q := r.Quota; q != nil {
		sets = append(sets, tmux.Set{Name: OptQuotaPct, Value: strconv.FormatInt(q.Pct, 10)}, tmux.Set{Name: OptQuotaWindow, Value: q.Window})
		if q.ResetsAtMS > 0 {
			sets = append(sets, tmux.Set{Name: OptQuotaResetsAt, Value: strconv.FormatInt(q.ResetsAtMS, 10)})
		} else {
			sets = append(sets, tmux.Set{Name: OptQuotaResetsAt, Unset: true})
		}
		sets = append(sets, tmux.Set{Name: OptQuotaAt, Value: t})
	}
	if r.Model != "" {
		sets = append(sets, tmux.Set{Name: OptModel, Value: r.Model})
	}
	if r.CostUSD != nil {
		sets = append(sets, tmux.Set{Name: OptCostUSD, Value: strconv.FormatFloat(*r.CostUSD, 'f', -1, 64)})
	}
	return sets
}

// At is the time a reading is stamped with: its own when it has one that
// is not ahead of now, else now (the moment the payload arrived).
func (r Reading) At(nowMS int64) int64 {
	if r.AtMS > 0 && r.AtMS <= nowMS {
		return r.AtMS
	}
	return nowMS
}
