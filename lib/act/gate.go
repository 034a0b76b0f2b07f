package act

import (
	"fmt"
	"slices"
	"strings"
)

// Target is what the gate reads about one pane, from one cycle.
type Target struct {
	Pane   string
	Agent  string // manifest name; "" when the pane holds no agent
	State  string
	Detail string
	// Context is @agent_context_pct, nil when the pane has no reading;
	// Telemetry says whether the agent's manifest has a context channel at
	// all (without one the gauge can never be read: no-coverage).
	Context   *int64
	Telemetry bool
	Session   string
	CWD       string
	PID       int
	Title     string
	EpisodeMS int64
	Since     int64 // @agent_since (since_ms), the state run's start
	// SettleMS is the agent manifest's [input] settle_ms: keys sent
	// sooner after Since are dropped by the agent.
	SettleMS int64
	Lock     string // the raw @agent_action
	// The pending call's name (not its summary), for the audit log.
	PendingTool string
	PendingCall string
}

// SettleWait is how long to wait before the first key so that the agent's
// dialog has been up SettleMS: a blocked run only (a dialog opened with
// it), never more than SettleMS, 0 when it is old enough.
func SettleWait(t Target, nowMS int64) int64 {
	if t.SettleMS <= 0 || t.State != "blocked" || t.Since <= 0 {
		return 0
	}
	return min(max(t.Since+t.SettleMS-nowMS, 0), t.SettleMS)
}

// Gate reasons (exit 4) and the lock's (exit 5).
const (
	ReasonGated          = "gated"
	ReasonRequiresUnmet  = "requires-unmet"
	ReasonWrongAgent     = "wrong-agent"
	ReasonNoCoverage     = "no-coverage"
	ReasonEpisodeChanged = "episode-changed"
	ReasonRequestGone    = "request-gone"
	ReasonLocked         = "locked"
	ReasonUnconfirmed    = "unconfirmed"
	ReasonPaneGone       = "pane-gone"
)

// Verdict is the gate's answer: Reason is "" when the action may fire, else
// the refusal token, with Why a human explanation.
type Verdict struct {
	Reason string
	Why    string
}

// Fireable reports whether the gate let the action through.
func (v Verdict) Fireable() bool { return v.Reason == "" }

// Gate runs the broker's checks in order: identity (the declared agents),
// coverage (an arm for this agent), requires, then the when gate, which
// force skips whole. A refusal names the first check that failed. The lock
// is checked separately (Locked): it is not a property of the action.
func Gate(a *Action, t Target, force bool) Verdict {
	if t.Agent == "" {
		return Verdict{ReasonWrongAgent, "no agent in " + t.Pane}
	}
	if !a.Declares(t.Agent) {
		return Verdict{ReasonWrongAgent, fmt.Sprintf("%s is for %s, not %s", a.Name, strings.Join(a.Agents, ", "), t.Agent)}
	}
	if !a.Arm(t.Agent) {
		return Verdict{ReasonNoCoverage, fmt.Sprintf("%s has no %s sequence for %s", a.Name, a.Kind, t.Agent)}
	}
	for _, r := range a.Requires {
		if !t.has(r) {
			return Verdict{ReasonRequiresUnmet, fmt.Sprintf("%s needs the pane's %s, which is empty", a.Name, r)}
		}
	}
	if force {
		return Verdict{}
	}
	w := a.When
	if w.HasContext() {
		if !t.Telemetry {
			return Verdict{ReasonNoCoverage, fmt.Sprintf("%s reads the context gauge and %s reports none", a.Name, t.Agent)}
		}
	}
	if len(w.State) > 0 && !slices.Contains(w.State, t.State) {
		return Verdict{ReasonGated, fmt.Sprintf("%s is %s; %s needs %s", t.Pane, describe(t), a.Name, strings.Join(w.State, " or "))}
	}
	if len(w.Detail) > 0 && !slices.Contains(w.Detail, t.Detail) {
		return Verdict{ReasonGated, fmt.Sprintf("%s is %s; %s needs detail %s", t.Pane, describe(t), a.Name, strings.Join(w.Detail, " or "))}
	}
	if w.HasContext() {
		if t.Context == nil {
			return Verdict{ReasonGated, fmt.Sprintf("%s has no context reading yet", t.Pane)}
		}
		c := *t.Context
		if w.ContextPctMin != nil && c < *w.ContextPctMin {
			return Verdict{ReasonGated, fmt.Sprintf("%s context is %d%%; %s needs %d%% or more", t.Pane, c, a.Name, *w.ContextPctMin)}
		}
		if w.ContextPctMax != nil && c > *w.ContextPctMax {
			return Verdict{ReasonGated, fmt.Sprintf("%s context is %d%%; %s needs %d%% or less", t.Pane, c, a.Name, *w.ContextPctMax)}
		}
	}
	return Verdict{}
}

func describe(t Target) string {
	if t.Detail != "" {
		return t.State + "/" + t.Detail
	}
	return t.State
}

func (t Target) has(req string) bool {
	switch req {
	case "session":
		return t.Session != ""
	case "cwd":
		return t.CWD != ""
	case "pid":
		return t.PID > 0
	case "title":
		return t.Title != ""
	}
	return false
}

// Bind checks a fire's binders against one read of the pane: the episode
// --expect-episode-ms names (nil: not asked) against t.EpisodeMS, and the
// request --expect-permission-request names against the id the pane
// carries (request, "" for none). The fire reads them under its lock; a
// dry run on its own cycle, so it says the refusal the fire would meet.
func Bind(expectEpisode *int64, expectRequest *string, t Target, request string) Verdict {
	if e := expectEpisode; e != nil && *e != t.EpisodeMS {
		return Verdict{ReasonEpisodeChanged, fmt.Sprintf("%s is in episode %d, not %d", t.Pane, t.EpisodeMS, *e)}
	}
	if e := expectRequest; e != nil && *e != request {
		held := "no permission request"
		if request != "" {
			held = "request " + request
		}
		return Verdict{ReasonRequestGone, fmt.Sprintf("%s carries %s, not %s", t.Pane, held, *e)}
	}
	return Verdict{}
}
