package record

import "strconv"

// States is the closed state vocabulary.
var States = []string{"blocked", "working", "idle", "unknown"}

// ValidState reports whether s is one of the four state tokens.
func ValidState(s string) bool {
	switch s {
	case "working", "blocked", "idle", "unknown":
		return true
	}
	return false
}

// Prior is the stamp a pane carried when the cycle listed it.
type Prior struct {
	Name, State, Detail, Source, Session string
	PID                                  int
	EvidenceAt, Since, StampedAt, TurnAt int64
	IdleSince, UnblockSeen, RegDeadSince int64
	MuteUntil                            int64
	Attention                            bool
	// NextAt is @tma_next_at (arrival.NextMark): when a `tma jump --next`
	// last moved a client here, in epoch ms.
	NextAt int64
	// Foreign is an @agent_state outside the closed set (another tool wrote
	// it); State is then empty and the pane is folded as if unstamped.
	Foreign string

	// Hook-liveness demotion (the daemon's, see lib/fold/demote.go):
	// Unexplained counts the edges the hooks did not explain since
	// UnexplainedAt, the first of them; Demoted is when the count reached
	// [daemon] demote_edges.
	Unexplained, UnexplainedAt, Demoted int64
}

// ParsePrior reads a pane's options. Missing or malformed numbers read as 0;
// a value below 1e12 is legacy seconds and is scaled to milliseconds.
func ParsePrior(o map[string]string) Prior {
	p := Prior{
		Name: o["@agent_name"], State: o["@agent_state"], Detail: o["@agent_detail"],
		Source: o["@agent_source"], Session: o["@agent_session"],
		PID:        int(ms(o["@agent_pid"], false)),
		EvidenceAt: ms(o["@agent_evidence_at"], true), Since: ms(o["@agent_since"], true),
		StampedAt: ms(o["@agent_stamped_at"], true), TurnAt: ms(o["@agent_turn_at"], true),
		IdleSince: ms(o["@tma_idle_since"], true), UnblockSeen: ms(o["@tma_unblock_seen"], true),
		RegDeadSince: ms(o["@tma_reg_dead_since"], true), MuteUntil: ms(o["@agent_mute_until"], false),
		Attention: o["@agent_attention"] == "1", NextAt: ms(o["@tma_next_at"], false),
	}
	p.Unexplained, p.UnexplainedAt = ms(o["@tma_unexplained"], false), ms(o["@tma_unexplained_at"], true)
	p.Demoted = ms(o["@tma_demoted"], true)
	if p.State != "" && !ValidState(p.State) {
		p.Foreign, p.State = p.State, ""
	}
	if p.Source == "" && p.State != "" {
		p.Source = "capture"
	}
	return p
}

func ms(s string, scale bool) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	if scale && n > 0 && n < 1e12 {
		n *= 1000
	}
	return n
}

// AnchorNames are the internal anchor options, in the order they are written.
var AnchorNames = []string{"@tma_idle_since", "@tma_unblock_seen", "@tma_reg_dead_since", "@tma_unexplained", "@tma_unexplained_at", "@tma_demoted"}

// Anchor returns the stored value of one anchor.
func (p Prior) Anchor(name string) int64 {
	switch name {
	case "@tma_idle_since":
		return p.IdleSince
	case "@tma_unblock_seen":
		return p.UnblockSeen
	case "@tma_reg_dead_since":
		return p.RegDeadSince
	case "@tma_unexplained":
		return p.Unexplained
	case "@tma_unexplained_at":
		return p.UnexplainedAt
	case "@tma_demoted":
		return p.Demoted
	}
	return 0
}

// IsDemoted: the pane's hooks were demoted and no hook event has landed
// since (a hook claim newer than the demotion promotes it back).
func (p Prior) IsDemoted() bool {
	return p.Demoted > 0 && !(p.Source == "hook" && p.EvidenceAt > p.Demoted)
}

// Episode is max(since, turn_at): a new turn end on a pane that stayed idle
// starts a new episode.
func (p Prior) Episode() int64 {
	if p.TurnAt > p.Since {
		return p.TurnAt
	}
	return p.Since
}
