package act

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/tmaproject/tma/lib/manifest"
)

// Action kinds.
const (
	KindKeys = "keys" // a key sequence from the manifest, per agent
	KindText = "text" // the caller's line (--text), then the manifest's suffix keys
	KindExec = "exec" // sh -c command with the pane's context in TMA_* variables
)

// Kinds is the closed set of kinds.
var Kinds = []string{KindKeys, KindExec, KindText}

// Requirement tokens: the pane value that must be non-empty.
var Requirements = []string{"session", "cwd", "pid", "title"}

// DefaultTimeoutMS bounds a synchronous exec action when timeout_ms is unset.
const DefaultTimeoutMS = 30000

// DefaultDetachTimeoutMS bounds a detached exec action's child when
// detach_timeout_ms is unset: fifteen minutes.
const DefaultDetachTimeoutMS = 900000

// DefaultSigils are the leading characters a text payload may not start with
// when the manifest names none.
var DefaultSigils = []string{"/", "!"}

// Action is one parsed, validated action manifest.
type Action struct {
	Name    string // the file stem
	Source  string // the file path, or "bundled:<name>.toml"
	Bundled bool

	MinEngineVersion string
	Label            string
	Kind             string
	When             When
	Agents           []string // declared identity limit; nil means none
	Requires         []string
	Confirm          bool
	TimeoutMS        int64 // exec only
	// Detach: exec only; the broker spawns a supervisor and returns
	// spawned, the supervisor runs the child under DetachTimeoutMS.
	Detach          bool
	DetachTimeoutMS int64
	Command         string
	Keys            map[string][]string // keys: per agent, one send-keys argument each
	Text            map[string]TextArm  // text: per agent
	// Hook: keys only, per agent (claude, v1): the reply a held reply-lane
	// hook hands claude instead of the keys ("allow" or "deny").
	Hook map[string]HookArm
	// API: keys only, per agent (opencode, v1): the answer posted to the
	// agent's own server instead of the keys, when the pane names one.
	API    map[string]APIArm
	Sigils []string // text: refused as a payload's first character
}

// APIArm is one agent's [api] arm: the operation on the agent's server and,
// for a permission, the reply (OpenCode's tokens).
type APIArm struct {
	Op    string
	Reply string
}

// APIAgents are the agents with an HTTP answer lane (v1: opencode only).
var APIAgents = []string{"opencode"}

// The operations an [api] arm may name, and the replies a permission takes
// (OpenCode's own tokens).
const (
	OpPermissionReply = "permission-reply"
	OpQuestionReject  = "question-reject"
)

// APIOps and APIReplies are the closed sets.
var (
	APIOps     = []string{OpPermissionReply, OpQuestionReject}
	APIReplies = []string{"once", "always", "reject"}
)

// KindAPI is the arm that answered over an agent's HTTP server, as the
// audit log names it (not a manifest kind).
const KindAPI = "api"

// When is the gate: every set field must hold (AND). Empty lists and nil
// bounds constrain nothing.
type When struct {
	State         []string
	Detail        []string
	ContextPctMin *int64
	ContextPctMax *int64
}

// HasContext reports whether the gate reads the context gauge.
func (w When) HasContext() bool { return w.ContextPctMin != nil || w.ContextPctMax != nil }

// KindHook is the arm that delivered a reply over the claude hook reply
// lane, as the audit log names it (not a manifest kind).
const KindHook = "hook"

// HookArm is one agent's [hook] arm: the behaviour the reply lane returns.
type HookArm struct {
	Reply string
}

// HookAgents are the agents with a hook reply lane (v1: claude only).
var HookAgents = []string{"claude"}

// HookReplies are the replies a [hook] arm may name.
var HookReplies = []string{"allow", "deny"}

// TextArm is one agent's side of a text action.
type TextArm struct {
	Suffix []string // keys pressed after the payload (one send-keys)
	// SteerNow declares that the agent queues a line typed mid-turn rather
	// than losing it; a text action gated on working covers only such arms.
	SteerNow bool
}

type fileT struct {
	MinEngineVersion any                       `toml:"min_engine_version"` // any: checked by manifest.Decode
	Name             *string                   `toml:"name"`
	Label            *string                   `toml:"label"`
	Kind             *string                   `toml:"kind"`
	When             *whenT                    `toml:"when"`
	Agents           []string                  `toml:"agents"`
	Requires         []string                  `toml:"requires"`
	Confirm          bool                      `toml:"confirm"`
	TimeoutMS        *int64                    `toml:"timeout_ms"`
	Command          *string                   `toml:"command"`
	Keys             map[string][]string       `toml:"keys"`
	Text             map[string]toml.Primitive `toml:"text"`
	Detach           *bool                     `toml:"detach"`
	DetachTimeoutMS  *int64                    `toml:"detach_timeout_ms"`
	API              map[string]apiArmT        `toml:"api"`
	Hook             map[string]hookArmT       `toml:"hook"`
}

type apiArmT struct {
	Op    *string `toml:"op"`
	Reply *string `toml:"reply"`
}

type hookArmT struct {
	Reply *string `toml:"reply"`
}

type whenT struct {
	State         []string `toml:"state"`
	Detail        []string `toml:"detail"`
	ContextPctMin *int64   `toml:"context_pct_min"`
	ContextPctMax *int64   `toml:"context_pct_max"`
}

type textArmT struct {
	Suffix   []string `toml:"suffix"`
	SteerNow bool     `toml:"steer_now"`
}

// Parse parses and validates one action manifest. stem is the file stem (the
// action's name) and source names the file in every error.
func Parse(stem, source string, data []byte) (*Action, error) {
	a, err := parse(stem, source, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return a, nil
}

func parse(stem, source string, data []byte) (*Action, error) {
	if !manifest.ValidToken(stem) {
		return nil, fmt.Errorf("action name %q (the file stem) must match [a-z0-9_-]+", stem)
	}
	var f fileT
	mev, md, err := manifest.Decode(data, &f, &f.MinEngineVersion)
	if err != nil {
		return nil, err
	}
	a := &Action{Name: stem, Source: source, MinEngineVersion: mev, Confirm: f.Confirm}
	var sigils []string
	sigilsSet := false
	if f.Text != nil {
		a.Text = map[string]TextArm{}
		for _, k := range sortedKeys(f.Text) {
			if k == "sigils" {
				if err := md.PrimitiveDecode(f.Text[k], &sigils); err != nil {
					return nil, fmt.Errorf("text.sigils: %v", err)
				}
				sigilsSet = true
				continue
			}
			var arm textArmT
			if err := md.PrimitiveDecode(f.Text[k], &arm); err != nil {
				return nil, fmt.Errorf("text.%s: want { suffix = [...], steer_now = bool }: %v", k, err)
			}
			a.Text[k] = TextArm{Suffix: arm.Suffix, SteerNow: arm.SteerNow}
		}
	}
	if und := undecoded(md); len(und) > 0 {
		if len(und) == 1 {
			return nil, fmt.Errorf("unknown key %s", und[0])
		}
		return nil, fmt.Errorf("unknown keys %s", strings.Join(und, ", "))
	}

	if f.Name == nil {
		return nil, errors.New("missing name")
	}
	if *f.Name != stem {
		return nil, fmt.Errorf("name: %q must equal the file stem %q", *f.Name, stem)
	}
	if f.Label == nil || strings.TrimSpace(*f.Label) == "" {
		return nil, errors.New("missing label")
	}
	if err := checkText("label", *f.Label); err != nil {
		return nil, err
	}
	a.Label = *f.Label
	if f.Kind == nil {
		return nil, fmt.Errorf("missing kind (one of %s)", strings.Join(Kinds, ", "))
	}
	if !slices.Contains(Kinds, *f.Kind) {
		return nil, fmt.Errorf("kind: %q is not one of %s", *f.Kind, strings.Join(Kinds, ", "))
	}
	a.Kind = *f.Kind
	if f.When != nil {
		w := f.When
		for _, s := range w.State {
			if !manifest.IsState(s) {
				return nil, fmt.Errorf("when.state: %q is not one of %s", s, strings.Join(manifest.States, ", "))
			}
		}
		for _, d := range w.Detail {
			if !manifest.ValidToken(d) {
				return nil, fmt.Errorf("when.detail: %q must match [a-z0-9_-]+", d)
			}
		}
		for _, b := range []struct {
			name string
			v    *int64
		}{{"context_pct_min", w.ContextPctMin}, {"context_pct_max", w.ContextPctMax}} {
			if b.v != nil && (*b.v < 0 || *b.v > 100) {
				return nil, fmt.Errorf("when.%s: %d is not a percentage (0-100)", b.name, *b.v)
			}
		}
		if w.ContextPctMin != nil && w.ContextPctMax != nil && *w.ContextPctMin > *w.ContextPctMax {
			return nil, errors.New("when: context_pct_min is above context_pct_max")
		}
		a.When = When{State: w.State, Detail: w.Detail, ContextPctMin: w.ContextPctMin, ContextPctMax: w.ContextPctMax}
	}
	for _, ag := range f.Agents {
		if !manifest.ValidToken(ag) {
			return nil, fmt.Errorf("agents: %q must match [a-z0-9_-]+", ag)
		}
	}
	if f.Agents != nil {
		a.Agents = f.Agents
	}
	for _, r := range f.Requires {
		if !slices.Contains(Requirements, r) {
			return nil, fmt.Errorf("requires: %q is not one of %s", r, strings.Join(Requirements, ", "))
		}
	}
	a.Requires = f.Requires

	switch a.Kind {
	case KindKeys:
		if f.Command != nil || f.TimeoutMS != nil || f.Text != nil || f.Detach != nil || f.DetachTimeoutMS != nil {
			return nil, fmt.Errorf("%s: a keys action takes [keys] only", firstSet(f))
		}
		if len(f.Keys) == 0 {
			return nil, errors.New("missing [keys]: a keys action needs a key sequence for at least one agent")
		}
		for _, ag := range sortedKeys(f.Keys) {
			if !manifest.ValidToken(ag) {
				return nil, fmt.Errorf("keys: agent %q must match [a-z0-9_-]+", ag)
			}
			seq := f.Keys[ag]
			if len(seq) == 0 {
				return nil, fmt.Errorf("keys.%s: empty key sequence", ag)
			}
			for _, k := range seq {
				if k == "" {
					return nil, fmt.Errorf("keys.%s: empty key", ag)
				}
				if _, err := checkArgItem(k); err != nil {
					return nil, fmt.Errorf("keys.%s: %v", ag, err)
				}
				if err := checkText("keys."+ag, k); err != nil {
					return nil, err
				}
			}
		}
		a.Keys = f.Keys
		if f.Hook != nil {
			if err := a.parseHook(f.Hook); err != nil {
				return nil, err
			}
		}
		if f.API != nil {
			if err := a.parseAPI(f.API); err != nil {
				return nil, err
			}
		}
	case KindText:
		if f.Hook != nil {
			return nil, errors.New("[hook]: only a keys action carries a hook arm")
		}
		if f.API != nil {
			return nil, errors.New("[api]: only a keys action carries an api arm")
		}
		if f.Command != nil || f.TimeoutMS != nil || f.Keys != nil || f.Detach != nil || f.DetachTimeoutMS != nil {
			return nil, fmt.Errorf("%s: a text action takes [text] only", firstSet(f))
		}
		if len(a.Text) == 0 {
			return nil, errors.New("missing [text]: a text action needs an entry for at least one agent")
		}
		for ag, arm := range a.Text {
			if !manifest.ValidToken(ag) {
				return nil, fmt.Errorf("text: agent %q must match [a-z0-9_-]+", ag)
			}
			for _, k := range arm.Suffix {
				if k == "" {
					return nil, fmt.Errorf("text.%s.suffix: empty key", ag)
				}
				if err := checkText("text."+ag+".suffix", k); err != nil {
					return nil, err
				}
			}
		}
		a.Sigils = DefaultSigils
		if sigilsSet {
			for _, s := range sigils {
				if s == "" {
					return nil, errors.New("text.sigils: empty sigil")
				}
				if err := checkText("text.sigils", s); err != nil {
					return nil, err
				}
			}
			a.Sigils = sigils
		}
	case KindExec:
		if f.Hook != nil {
			return nil, errors.New("[hook]: only a keys action carries a hook arm")
		}
		if f.API != nil {
			return nil, errors.New("[api]: only a keys action carries an api arm")
		}
		if f.Keys != nil || f.Text != nil {
			return nil, errors.New("an exec action takes command, not [keys] or [text]")
		}
		if f.Command == nil || strings.TrimSpace(*f.Command) == "" {
			return nil, errors.New("missing command: an exec action runs sh -c <command>")
		}
		if err := checkText("command", *f.Command); err != nil {
			return nil, err
		}
		a.Command = *f.Command
		a.TimeoutMS = DefaultTimeoutMS
		if f.TimeoutMS != nil {
			if *f.TimeoutMS <= 0 {
				return nil, fmt.Errorf("timeout_ms: %d must be positive", *f.TimeoutMS)
			}
			a.TimeoutMS = *f.TimeoutMS
		}
		if err := a.parseDetach(f); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// parseDetach checks detach and detach_timeout_ms: the deadline belongs to
// a detached action and timeout_ms to a synchronous one, so a manifest that
// mixes them is told which it meant rather than half obeyed.
func (a *Action) parseDetach(f fileT) error {
	a.Detach = f.Detach != nil && *f.Detach
	switch {
	case f.DetachTimeoutMS != nil && !a.Detach:
		return errors.New("detach_timeout_ms: bounds a detached action; set detach = true (a synchronous one uses timeout_ms)")
	case a.Detach && f.TimeoutMS != nil:
		return errors.New("timeout_ms: bounds a synchronous action; a detached one (detach = true) uses detach_timeout_ms")
	}
	if !a.Detach {
		return nil
	}
	a.DetachTimeoutMS = DefaultDetachTimeoutMS
	if f.DetachTimeoutMS != nil {
		if *f.DetachTimeoutMS <= 0 {
			return fmt.Errorf("detach_timeout_ms: %d must be positive", *f.DetachTimeoutMS)
		}
		a.DetachTimeoutMS = *f.DetachTimeoutMS
	}
	return nil
}

// Deadline is how long the action's child may run: detach_timeout_ms for a
// detached exec action, timeout_ms for a synchronous one, 0 for the rest.
func (a *Action) Deadline() int64 {
	if a.Detach {
		return a.DetachTimeoutMS
	}
	return a.TimeoutMS
}

// parseHook checks the [hook] arms: a lane agent, a known reply, and a
// [keys] entry for the same agent (what the fire sends when no hook holds).
func (a *Action) parseHook(arms map[string]hookArmT) error {
	a.Hook = map[string]HookArm{}
	for _, ag := range sortedKeys(arms) {
		if !slices.Contains(HookAgents, ag) {
			return fmt.Errorf("hook.%s: only %s have a hook reply lane", ag, strings.Join(HookAgents, ", "))
		}
		r := arms[ag].Reply
		if r == nil {
			return fmt.Errorf("hook.%s: missing reply (one of %s)", ag, strings.Join(HookReplies, ", "))
		}
		if !slices.Contains(HookReplies, *r) {
			return fmt.Errorf("hook.%s.reply: %q is not one of %s", ag, *r, strings.Join(HookReplies, ", "))
		}
		if len(a.Keys[ag]) == 0 {
			return fmt.Errorf("hook.%s: needs a keys.%s sequence too (sent when no hook is holding)", ag, ag)
		}
		a.Hook[ag] = HookArm{Reply: *r}
	}
	return nil
}

// parseAPI checks the [api] arms: an agent with an HTTP lane, a known op
// (a permission's reply among OpenCode's own tokens; a question's reject
// takes none), and a [keys] entry for the same agent (what the fire sends
// when the pane names no server).
func (a *Action) parseAPI(arms map[string]apiArmT) error {
	a.API = map[string]APIArm{}
	for _, ag := range sortedKeys(arms) {
		arm := arms[ag]
		if !slices.Contains(APIAgents, ag) {
			return fmt.Errorf("api.%s: only %s have an HTTP answer lane", ag, strings.Join(APIAgents, ", "))
		}
		if arm.Op == nil {
			return fmt.Errorf("api.%s: missing op (one of %s)", ag, strings.Join(APIOps, ", "))
		}
		if !slices.Contains(APIOps, *arm.Op) {
			return fmt.Errorf("api.%s.op: %q is not one of %s", ag, *arm.Op, strings.Join(APIOps, ", "))
		}
		reply := ""
		switch {
		case *arm.Op == OpPermissionReply && arm.Reply == nil:
			return fmt.Errorf("api.%s: %s needs a reply (one of %s)", ag, *arm.Op, strings.Join(APIReplies, ", "))
		case *arm.Op == OpPermissionReply && !slices.Contains(APIReplies, *arm.Reply):
			return fmt.Errorf("api.%s.reply: %q is not one of %s", ag, *arm.Reply, strings.Join(APIReplies, ", "))
		case *arm.Op == OpPermissionReply:
			reply = *arm.Reply
		case arm.Reply != nil:
			return fmt.Errorf("api.%s.reply: %s takes no reply", ag, *arm.Op)
		}
		if len(a.Keys[ag]) == 0 {
			return fmt.Errorf("api.%s: needs a keys.%s sequence too (sent when the pane names no server)", ag, ag)
		}
		a.API[ag] = APIArm{Op: *arm.Op, Reply: reply}
	}
	return nil
}

func firstSet(f fileT) string {
	switch {
	case f.Command != nil:
		return "command"
	case f.TimeoutMS != nil:
		return "timeout_ms"
	case f.Detach != nil:
		return "detach"
	case f.DetachTimeoutMS != nil:
		return "detach_timeout_ms"
	case f.Keys != nil:
		return "[keys]"
	}
	return "[text]"
}

// checkText refuses control bytes in a manifest string: they would end a
// tmux command line, or reach a terminal as something other than a key.
func checkText(field, s string) error {
	if HasControl(s) {
		return fmt.Errorf("%s: %q carries a control character", field, s)
	}
	return nil
}

func undecoded(md toml.MetaData) []string {
	var out []string
	for _, k := range md.Undecoded() {
		out = append(out, k.String())
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Arm reports whether the action can deliver to agent: the declared agents
// (if any) name it, and a keys or text action has an entry for it (for a
// text action gated on working, one that declares steer_now). An exec action
// with no agents list runs for any agent.
func (a *Action) Arm(agent string) bool {
	if agent == "" {
		return false
	}
	if a.Agents != nil && !slices.Contains(a.Agents, agent) {
		return false
	}
	switch a.Kind {
	case KindKeys:
		return len(a.Keys[agent]) > 0
	case KindText:
		arm, ok := a.Text[agent]
		if !ok {
			return false
		}
		if slices.Contains(a.When.State, manifest.StateWorking) && !arm.SteerNow {
			return false
		}
		return true
	}
	return true
}

// Declares reports whether the declared agents list admits agent (an
// action without one admits every agent).
func (a *Action) Declares(agent string) bool {
	return a.Agents == nil || slices.Contains(a.Agents, agent)
}

// Coverage is the sorted list of agents the action can fire on; empty means
// any agent (an exec action with no agents list).
func (a *Action) Coverage() []string {
	var names []string
	switch a.Kind {
	case KindKeys:
		names = sortedKeys(a.Keys)
	case KindText:
		names = sortedKeys(a.Text)
	default:
		names = slices.Clone(a.Agents)
		sort.Strings(names)
		return nonNil(names)
	}
	out := []string{}
	for _, n := range names {
		if a.Arm(n) {
			out = append(out, n)
		}
	}
	return out
}

// NamedAgents is every agent name the manifest mentions (agents, [keys],
// [text]), for doctor's unknown-agent check.
func (a *Action) NamedAgents() []string {
	seen := map[string]bool{}
	for _, n := range a.Agents {
		seen[n] = true
	}
	for n := range a.Keys {
		seen[n] = true
	}
	for n := range a.Text {
		seen[n] = true
	}
	return sortedKeys(seen)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
