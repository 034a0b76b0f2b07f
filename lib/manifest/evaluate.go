package manifest

import (
	"strings"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/screen"
)

// Result is one rule's outcome on one screen.
type Result struct {
	Rule    *Rule
	Matched bool
	Excerpt string // the line that matched, trimmed to at most MaxExcerpt bytes; empty when unmatched
}

// MaxExcerpt bounds Result.Excerpt, in bytes.
const MaxExcerpt = 120

// Evaluate runs every rule of the agent on s, in file order. Matching reads the
// ANSI-stripped text; each region is cut once per call.
func (a *Agent) Evaluate(s screen.Screen) []Result {
	out := make([]Result, len(a.Rules))
	regions := map[screen.Region]*region{}
	for i := range a.Rules {
		r := &a.Rules[i]
		reg := regions[r.region]
		if reg == nil {
			reg = &region{lines: s.Region(r.region)}
			regions[r.region] = reg
		}
		ok, ex := r.Match.eval(reg)
		out[i] = Result{Rule: r, Matched: ok}
		if ok {
			out[i].Excerpt = excerpt(ex)
		}
	}
	return out
}

// ScreenMode names the first [[modes]] entry whose match holds on s, with the line that
// matched; "" when the screen names no mode.
func (a *Agent) ScreenMode(s screen.Screen) (name, line string) {
	regions := map[screen.Region]*region{}
	for i := range a.Modes {
		m := &a.Modes[i]
		reg := regions[m.region]
		if reg == nil {
			reg = &region{lines: s.Region(m.region)}
			regions[m.region] = reg
		}
		if ok, ex := m.Match.eval(reg); ok {
			return m.Name, excerpt(ex)
		}
	}
	return "", ""
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= MaxExcerpt {
		return s
	}
	cut := MaxExcerpt
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// stateRank orders states for Decide: blocked beats working beats idle beats unknown.
func stateRank(s string) int {
	switch s {
	case StateBlocked:
		return 3
	case StateWorking:
		return 2
	case StateIdle:
		return 1
	}
	return 0
}

// Decide picks the verdict from Evaluate's results. If any matched rule sets
// skip_state_update, the screen is a history view: skip is true and best is the first such
// rule (so explain can name it). Otherwise best is the winning matched rule: the strongest
// state (blocked, working, idle, unknown), then the highest priority, then file order; nil
// when nothing matched.
func Decide(results []Result) (best *Result, skip bool) {
	for i := range results {
		if results[i].Matched && results[i].Rule.SkipStateUpdate {
			return &results[i], true
		}
	}
	for i := range results {
		r := &results[i]
		if !r.Matched {
			continue
		}
		if best == nil || beats(r.Rule, best.Rule) {
			best = r
		}
	}
	return best, false
}

// beats reports whether rule a wins over rule b.
func beats(a, b *Rule) bool {
	if ra, rb := stateRank(a.State), stateRank(b.State); ra != rb {
		return ra > rb
	}
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.Index < b.Index
}
