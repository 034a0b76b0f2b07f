package selector

import (
	"fmt"
	"strings"

	"github.com/tmaproject/tma/lib/record"
)

// Tokens is the valid --state / --until set.
var Tokens = []string{"idle", "working", "blocked", "unknown", "done"}

// Flags are the selector flags, embedded in every command that takes them.
// A flag given an empty value is not an absent flag: --repo "" selects the
// panes with no repo label, and never widens to everything.
type Flags struct {
	Session *string `name:"session" placeholder:"NAME" help:"only panes in this tmux session (exact)."`
	Repo    *string `name:"repo" placeholder:"NAME" help:"only panes whose git repo label is NAME (exact; \"\" selects panes outside any repo)."`
	Branch  *string `name:"branch" placeholder:"NAME" help:"only panes on this git branch (exact; \"\" selects panes with no branch)."`
	State   *string `name:"state" placeholder:"STATES" help:"comma-separated: idle, working, blocked, unknown, done."`
	Agent   *string `name:"agent" placeholder:"NAME" help:"only this agent (manifest name, exact)."`
}

// Selector is compiled Flags.
type Selector struct {
	f      Flags
	states map[string]bool
}

// ParseStates parses a comma set of state tokens; an unknown token is an
// error naming the valid set.
func ParseStates(flag, s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		ok := false
		for _, v := range Tokens {
			ok = ok || v == t
		}
		if !ok {
			return nil, fmt.Errorf("invalid value %q for %s: unknown state %q (expected one of: %s)", s, flag, t, strings.Join(Tokens, ", "))
		}
		out[t] = true
	}
	return out, nil
}

// Set reports whether any selector flag was given: on a command with a
// target, the selectors are the target then.
func (f Flags) Set() bool {
	return f.Session != nil || f.Repo != nil || f.Branch != nil || f.State != nil || f.Agent != nil
}

// Empty names the first selector flag given an empty value ("" when none):
// a fleet-wide action refuses such a selector rather than guess.
func (f Flags) Empty() string {
	for _, v := range []struct {
		name string
		p    *string
	}{{"--session", f.Session}, {"--repo", f.Repo}, {"--branch", f.Branch}, {"--state", f.State}, {"--agent", f.Agent}} {
		if v.p != nil && *v.p == "" {
			return v.name
		}
	}
	return ""
}

// AgentName is --agent's value, "" when not given.
func (f Flags) AgentName() string {
	if f.Agent == nil {
		return ""
	}
	return *f.Agent
}

// Compile validates the flags.
func (f Flags) Compile() (*Selector, error) {
	s := &Selector{f: f}
	if f.State != nil {
		st, err := ParseStates("--state", *f.State)
		if err != nil {
			return nil, err
		}
		s.states = st
	}
	return s, nil
}

// NeedsGit reports whether matching needs the repo/branch labels.
func (s *Selector) NeedsGit() bool { return s.f.Repo != nil || s.f.Branch != nil }

// label matches an optional row label exactly; "" matches an absent one.
func label(want *string, have *string) bool {
	if want == nil {
		return true
	}
	if have == nil {
		return *want == ""
	}
	return *have == *want
}

// Match reports whether a row is in scope. --state idle matches done too;
// --state done only idle panes with attention.
func (s *Selector) Match(r *record.Row) bool {
	a := &r.Row
	if s.f.Session != nil && r.TmuxSession != *s.f.Session {
		return false
	}
	if s.f.Agent != nil && a.Agent != *s.f.Agent {
		return false
	}
	if !label(s.f.Repo, a.Repo) || !label(s.f.Branch, a.Branch) {
		return false
	}
	if s.states != nil && !s.states[a.State] && !(a.Done && s.states["done"]) {
		return false
	}
	return true
}
