package manifest

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/tmaproject/tma/lib/screen"
)

// EngineVersion is the manifest schema version this engine reads. A manifest whose
// min_engine_version is newer asks the user to upgrade tma.
const EngineVersion = "0.1"

// The closed state vocabulary.
const (
	StateWorking = "working"
	StateBlocked = "blocked"
	StateIdle    = "idle"
	StateUnknown = "unknown"
)

// States is the closed set of states, strongest first.
var States = []string{StateBlocked, StateWorking, StateIdle, StateUnknown}

// Lifecycle is the covers token for lifecycle (start/end) hook claims.
const Lifecycle = "lifecycle"

// Telemetry channels and formats the engine knows.
var (
	TelemetryChannels = []string{"event", "file-tail", "screen"}
	TelemetryFormats  = []string{"claude-statusline-json", "codex-rollout-jsonl", "cursor-statusline-json", "pi-context-json"}
)

// Agent is one parsed, validated manifest.
type Agent struct {
	Name   string // the file stem
	Source string // the file path, or "bundled:<stem>.toml"

	Bundled bool
	// Digest names the file's bytes: a quiet pane's stored verdict is
	// reused only while the manifest that read its screen is this one (the
	// scan compares it with the pane's @agent_hash).
	Digest           string
	MinEngineVersion string
	ProcessNames     []string
	TitlePatterns    []*Regex
	Hooks            *Hooks // nil when the manifest has no [hooks]
	Visible          []string
	Rules            []Rule
	Modes            []Mode // [[modes]]: the permission modes the screen names, in file order
	Details          map[string]Detail
	Telemetry        *Telemetry
	// SettleMS is [input] settle_ms: how long a dialog of this agent
	// ignores keys after it opens (Crush drops input until it has been
	// quiet a while); act sends no key before the blocked run is that old.
	SettleMS int

	aliases map[string]string // alias -> canonical detail token
}

// Hooks is the [hooks] table: which states the agent's hooks report and how each event maps.
type Hooks struct {
	Covers []string
	Map    []HookMap
}

// HookMap maps one hook event, optionally narrowed by a regex over the raw payload, to a claim.
type HookMap struct {
	Event   string
	Matcher *Regex // nil: every payload
	Claim   Claim
	TurnEnd bool
}

// Claim is what a hook event asserts: a state (with an optional detail) or a lifecycle edge
// ("start" or "end"). Exactly one of State and Lifecycle is set.
type Claim struct {
	State     string
	Detail    string
	Lifecycle string
}

// Rule is one screen rule.
type Rule struct {
	Index           int // position in the manifest's [[rules]] array, from 0
	State           string
	Detail          string
	Label           string
	Priority        int
	Region          string // the region spec as written
	SkipStateUpdate bool
	Match           *Match

	region screen.Region
}

// Mode is one [[modes]] entry: a mode of the agent (Claude's permission modes) and the screen
// text that names it. It never decides a state: doctor and debug explain name the mode a
// pane's screen shows.
type Mode struct {
	Name   string
	Region string // the region spec as written
	Match  *Match

	region screen.Region
}

// Detail is one [details.<token>] table.
type Detail struct {
	Aliases []string
}

// Telemetry is the [telemetry] table.
type Telemetry struct {
	Context *TelemetryContext // [telemetry.context]; nil when absent
}

// TelemetryContext says where the agent's context-window usage comes from.
type TelemetryContext struct {
	Channel string // event | file-tail | screen
	Format  string // a compiled-in parser id
}

// The TOML shapes. Every field the schema allows appears here; anything else is left
// undecoded and reported as an unknown key.
type fileT struct {
	MinEngineVersion any                `toml:"min_engine_version"` // any: checked by Decode
	Identity         *identityT         `toml:"identity"`
	Hooks            *hooksT            `toml:"hooks"`
	Capture          *captureT          `toml:"capture"`
	Rules            []ruleT            `toml:"rules"`
	Modes            []modeT            `toml:"modes"`
	Details          map[string]detailT `toml:"details"`
	Telemetry        *telemetryT        `toml:"telemetry"`
	Input            *inputT            `toml:"input"`
}

type inputT struct {
	SettleMS *int `toml:"settle_ms"`
}

// MaxSettleMS bounds [input] settle_ms: act holds the pane's lock while it
// waits, and a person's key is never held longer than this.
const MaxSettleMS = 2000

type identityT struct {
	ProcessNames  []string `toml:"process_names"`
	TitlePatterns []string `toml:"title_patterns"`
}

type hooksT struct {
	Covers []string   `toml:"covers"`
	Map    []hookMapT `toml:"map"`
}

type hookMapT struct {
	Event   string  `toml:"event"`
	Matcher *string `toml:"matcher"`
	Claim   *claimT `toml:"claim"`
	TurnEnd bool    `toml:"turn_end"`
}

type claimT struct {
	State     *string `toml:"state"`
	Detail    *string `toml:"detail"`
	Lifecycle *string `toml:"lifecycle"`
}

type captureT struct {
	Visible []string `toml:"visible"`
}

type ruleT struct {
	State           string  `toml:"state"`
	Detail          string  `toml:"detail"`
	Priority        int     `toml:"priority"`
	Region          string  `toml:"region"`
	Match           *matchT `toml:"match"`
	SkipStateUpdate bool    `toml:"skip_state_update"`
	Label           string  `toml:"label"`
}

type modeT struct {
	Name   string  `toml:"name"`
	Region string  `toml:"region"`
	Match  *matchT `toml:"match"`
}

type matchT struct {
	Contains  *string  `toml:"contains"`
	Regex     *string  `toml:"regex"`
	LineRegex *string  `toml:"line_regex"`
	Any       []matchT `toml:"any"`
	All       []matchT `toml:"all"`
	Not       *matchT  `toml:"not"`
}

type detailT struct {
	Aliases []string `toml:"aliases"`
}

type telemetryT struct {
	Context *contextT `toml:"context"`
}

type contextT struct {
	Channel string `toml:"channel"`
	Format  string `toml:"format"`
}

// ValidToken reports whether s is a valid detail token (or agent name): [a-z0-9_-]+.
func ValidToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// IsState reports whether s is one of the four states.
func IsState(s string) bool { return slices.Contains(States, s) }

// Parse parses and validates one manifest. stem is the agent name (the file stem) and
// source names the file in every error. min_engine_version is checked before the unknown
// keys, so a manifest written for a newer engine reports "upgrade tma" instead.
func Parse(stem, source string, data []byte) (*Agent, error) {
	a, err := parse(stem, source, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return a, nil
}

// Digest is a manifest file's digest: 16 hex digits of FNV-1a over its
// bytes (a token, so it can stand in a tmux option and a format).
func Digest(data []byte) string {
	h := fnv.New64a()
	h.Write(data)
	return fmt.Sprintf("%016x", h.Sum64())
}

func parse(stem, source string, data []byte) (*Agent, error) {
	if !ValidToken(stem) {
		return nil, fmt.Errorf("agent name %q (the file stem) must match [a-z0-9_-]+", stem)
	}

	var f fileT
	mev, md, err := Decode(data, &f, &f.MinEngineVersion)
	if err != nil {
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		if len(keys) == 1 {
			return nil, fmt.Errorf("unknown key %s", keys[0])
		}
		return nil, fmt.Errorf("unknown keys %s", strings.Join(keys, ", "))
	}

	a := &Agent{Name: stem, Source: source, Digest: Digest(data), MinEngineVersion: mev}
	if err := a.fillIdentity(f.Identity); err != nil {
		return nil, err
	}
	if err := a.fillDetails(f.Details); err != nil {
		return nil, err
	}
	if err := a.fillHooks(f.Hooks); err != nil {
		return nil, err
	}
	if f.Capture == nil {
		return nil, errors.New("missing [capture] table (it may be empty)")
	}
	for _, s := range f.Capture.Visible {
		if !IsState(s) {
			return nil, fmt.Errorf("capture.visible: %s", badState(s))
		}
	}
	a.Visible = f.Capture.Visible
	for i, r := range f.Rules {
		rule, err := a.compileRule(i, r)
		if err != nil {
			return nil, fmt.Errorf("rules[%d]: %w", i, err)
		}
		a.Rules = append(a.Rules, rule)
	}
	for i, m := range f.Modes {
		mode, err := compileMode(m)
		if err != nil {
			return nil, fmt.Errorf("modes[%d]: %w", i, err)
		}
		a.Modes = append(a.Modes, mode)
	}
	if f.Input != nil && f.Input.SettleMS != nil {
		if v := *f.Input.SettleMS; v < 0 || v > MaxSettleMS {
			return nil, fmt.Errorf("input.settle_ms: %d is not between 0 and %d", v, MaxSettleMS)
		}
		a.SettleMS = *f.Input.SettleMS
	}
	if f.Telemetry != nil {
		a.Telemetry = &Telemetry{}
		if c := f.Telemetry.Context; c != nil {
			if !slices.Contains(TelemetryChannels, c.Channel) {
				return nil, fmt.Errorf("telemetry.context.channel: %q is not one of %s", c.Channel, strings.Join(TelemetryChannels, ", "))
			}
			if !slices.Contains(TelemetryFormats, c.Format) {
				return nil, fmt.Errorf("telemetry.context.format: %q is not one of %s", c.Format, strings.Join(TelemetryFormats, ", "))
			}
			a.Telemetry.Context = &TelemetryContext{Channel: c.Channel, Format: c.Format}
		}
	}
	return a, nil
}

// TOMLError names a TOML syntax error by line and column.
func TOMLError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("TOML parse error at line %d, column %d: %s", pe.Position.Line, pe.Position.Col, pe.Message)
	}
	return err
}

func badState(s string) string {
	return fmt.Sprintf("state %q is not one of %s", s, strings.Join(States, ", "))
}

func (a *Agent) fillIdentity(id *identityT) error {
	if id == nil {
		return errors.New("missing [identity] table")
	}
	if len(id.ProcessNames) == 0 {
		return errors.New("identity.process_names: at least one name is required")
	}
	for i, n := range id.ProcessNames {
		if n == "" || strings.ContainsAny(n, "/ \t\n") {
			return fmt.Errorf("identity.process_names[%d]: %q is not a process basename", i, n)
		}
	}
	a.ProcessNames = id.ProcessNames
	for i, p := range id.TitlePatterns {
		re, err := checkRegex(p)
		if err != nil {
			return fmt.Errorf("identity.title_patterns[%d]: bad regex: %w", i, err)
		}
		a.TitlePatterns = append(a.TitlePatterns, re)
	}
	return nil
}

func (a *Agent) fillDetails(ds map[string]detailT) error {
	a.Details = map[string]Detail{}
	a.aliases = map[string]string{}
	keys := make([]string, 0, len(ds))
	for k := range ds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, tok := range keys {
		if !ValidToken(tok) {
			return fmt.Errorf("details.%s: detail token must match [a-z0-9_-]+", tok)
		}
		if IsState(tok) {
			return fmt.Errorf("details.%s: a detail token may not be a state name", tok)
		}
		d := ds[tok]
		for i, al := range d.Aliases {
			switch {
			case !ValidToken(al):
				return fmt.Errorf("details.%s.aliases[%d]: %q must match [a-z0-9_-]+", tok, i, al)
			case IsState(al):
				return fmt.Errorf("details.%s.aliases[%d]: %q is a state name", tok, i, al)
			case al == tok:
				return fmt.Errorf("details.%s.aliases[%d]: %q aliases itself", tok, i, al)
			}
			if _, dup := ds[al]; dup {
				return fmt.Errorf("details.%s.aliases[%d]: %q is itself a detail token", tok, i, al)
			}
			if prev, dup := a.aliases[al]; dup {
				return fmt.Errorf("details.%s.aliases[%d]: %q is already an alias of %s", tok, i, al, prev)
			}
			a.aliases[al] = tok
		}
		a.Details[tok] = Detail{Aliases: d.Aliases}
	}
	return nil
}

func (a *Agent) checkDetail(tok string) (string, error) {
	if tok == "" {
		return "", nil
	}
	if !ValidToken(tok) {
		return "", fmt.Errorf("detail %q must match [a-z0-9_-]+", tok)
	}
	if IsState(tok) {
		return "", fmt.Errorf("detail %q is a state name", tok)
	}
	return a.NormalizeDetail(tok), nil
}

func (a *Agent) fillHooks(h *hooksT) error {
	if h == nil {
		return nil
	}
	a.Hooks = &Hooks{}
	for i, c := range h.Covers {
		if c != Lifecycle && !IsState(c) {
			return fmt.Errorf("hooks.covers[%d]: %q is not a state or %q", i, c, Lifecycle)
		}
	}
	a.Hooks.Covers = h.Covers
	for i, m := range h.Map {
		hm, err := a.compileHookMap(m)
		if err != nil {
			return fmt.Errorf("hooks.map[%d]: %w", i, err)
		}
		a.Hooks.Map = append(a.Hooks.Map, hm)
	}
	return nil
}

func (a *Agent) compileHookMap(m hookMapT) (HookMap, error) {
	hm := HookMap{Event: m.Event, TurnEnd: m.TurnEnd}
	if m.Event == "" {
		return hm, errors.New("event: required")
	}
	if m.Matcher != nil {
		re, err := checkRegex(*m.Matcher)
		if err != nil {
			return hm, fmt.Errorf("matcher: bad regex: %w", err)
		}
		hm.Matcher = re
	}
	c := m.Claim
	switch {
	case c == nil:
		return hm, errors.New("claim: required")
	case c.State != nil && c.Lifecycle != nil:
		return hm, errors.New("claim: state and lifecycle are exclusive")
	case c.State != nil:
		if !IsState(*c.State) {
			return hm, fmt.Errorf("claim.%s", badState(*c.State))
		}
		hm.Claim.State = *c.State
		if c.Detail != nil {
			d, err := a.checkDetail(*c.Detail)
			if err != nil {
				return hm, fmt.Errorf("claim.%w", err)
			}
			hm.Claim.Detail = d
		}
	case c.Lifecycle != nil:
		if *c.Lifecycle != "start" && *c.Lifecycle != "end" {
			return hm, fmt.Errorf("claim.lifecycle: %q is not start or end", *c.Lifecycle)
		}
		if c.Detail != nil {
			return hm, errors.New("claim: a lifecycle claim takes no detail")
		}
		hm.Claim.Lifecycle = *c.Lifecycle
	default:
		return hm, errors.New("claim: needs state or lifecycle")
	}
	return hm, nil
}

func (a *Agent) compileRule(i int, r ruleT) (Rule, error) {
	rule := Rule{
		Index:           i,
		State:           r.State,
		Label:           r.Label,
		Priority:        r.Priority,
		Region:          r.Region,
		SkipStateUpdate: r.SkipStateUpdate,
	}
	if r.State == "" {
		return rule, errors.New("state: required")
	}
	if !IsState(r.State) {
		return rule, errors.New(badState(r.State))
	}
	d, err := a.checkDetail(r.Detail)
	if err != nil {
		return rule, err
	}
	rule.Detail = d
	if r.Region == "" {
		return rule, errors.New("region: required")
	}
	if rule.region, err = screen.ParseRegion(r.Region); err != nil {
		return rule, fmt.Errorf("region: %w", err)
	}
	if r.Match == nil {
		return rule, errors.New("match: required")
	}
	if rule.Match, err = compileMatch("match", *r.Match); err != nil {
		return rule, err
	}
	return rule, nil
}

func compileMode(m modeT) (Mode, error) {
	mode := Mode{Name: m.Name, Region: m.Region}
	if m.Name == "" || strings.ContainsAny(m.Name, " \t\n") {
		return mode, fmt.Errorf("name: %q is not one word", m.Name)
	}
	if m.Region == "" {
		return mode, errors.New("region: required")
	}
	var err error
	if mode.region, err = screen.ParseRegion(m.Region); err != nil {
		return mode, fmt.Errorf("region: %w", err)
	}
	if m.Match == nil {
		return mode, errors.New("match: required")
	}
	if mode.Match, err = compileMatch("match", *m.Match); err != nil {
		return mode, err
	}
	return mode, nil
}

// Decode is a manifest's one TOML decode, shared by agent and action
// manifests: data into v, the manifest's strict shape, whose
// min_engine_version field engine points at (typed any, so that any value
// decodes and is judged here). It returns the checked version. A manifest for
// a newer engine must say "upgrade tma" rather than fail on what this engine
// does not know: callers check the version before the undecoded keys, and a
// value of a type this engine does not expect falls back to reading the
// version alone (a second decode, on that error path only).
func Decode(data []byte, v any, engine *any) (string, toml.MetaData, error) {
	md, err := toml.Decode(string(data), v)
	if err != nil {
		var pe toml.ParseError
		if !errors.As(err, &pe) {
			if _, verr := engineOnly(data); verr != nil {
				return "", md, verr
			}
		}
		return "", md, TOMLError(err)
	}
	mev, err := checkEngine(*engine)
	return mev, md, err
}

// engineOnly reads min_engine_version alone, leniently, and checks it: for
// a manifest the strict decode could not read, the version is the better
// reason.
func engineOnly(data []byte) (string, error) {
	var head struct {
		MinEngineVersion any `toml:"min_engine_version"`
	}
	if _, err := toml.Decode(string(data), &head); err != nil {
		return "", TOMLError(err)
	}
	return checkEngine(head.MinEngineVersion)
}

func checkEngine(mev any) (string, error) {
	if mev == nil {
		return "", errors.New("missing min_engine_version")
	}
	v, ok := mev.(string)
	if !ok {
		return "", errors.New("min_engine_version must be a string such as \"0.1\"")
	}
	newer, err := versionNewer(v, EngineVersion)
	if err != nil {
		return "", err
	}
	if newer {
		return "", fmt.Errorf("needs engine version %s but this tma reads %s: upgrade tma", v, EngineVersion)
	}
	return v, nil
}

// versionNewer reports whether dotted version v is newer than ref.
func versionNewer(v, ref string) (bool, error) {
	pv, err := parseVersion(v)
	if err != nil {
		return false, err
	}
	pr, err := parseVersion(ref)
	if err != nil {
		return false, err
	}
	return slices.Compare(pv, pr) > 0, nil
}

func parseVersion(v string) ([]int, error) {
	parts := strings.Split(v, ".")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("min_engine_version %q is not a dotted version such as \"0.1\"", v)
		}
		out[i] = n
	}
	// 0.1 and 0.1.0 are the same version.
	for len(out) > 1 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out, nil
}

// Covers reports whether the agent's hooks report state (or "lifecycle").
func (a *Agent) Covers(state string) bool {
	return a.Hooks != nil && slices.Contains(a.Hooks.Covers, state)
}

// IsVisible reports whether the screen rules reliably see state ([capture].visible).
func (a *Agent) IsVisible(state string) bool { return slices.Contains(a.Visible, state) }

// CoversContext reports whether the manifest declares a context gauge
// ([telemetry.context]): without one, a gauge on the agent's pane is
// nothing the agent reported, and context_high stays silent for it.
func (a *Agent) CoversContext() bool {
	return a != nil && a.Telemetry != nil && a.Telemetry.Context != nil
}

// NormalizeDetail maps an alias to its canonical detail token; any other token comes back
// unchanged.
func (a *Agent) NormalizeDetail(tok string) string {
	if c, ok := a.aliases[tok]; ok {
		return c
	}
	return tok
}

// Identifies reports whether a process basename and the pane title name this agent. A
// process of one of the agent's own names is enough: the title is the agent's to change
// (an extension may rename it), so it never outvotes the process. The title patterns
// narrow a runtime among the process names (node): a node process is any script until
// the title says which agent it is.
func (a *Agent) Identifies(basename, title string) bool {
	if !a.MatchesProcess(basename) {
		return false
	}
	return !IsRuntime(basename) || a.MatchesTitle(title)
}

// runtimes are the interpreters agents run under, whose process name says nothing of
// which script runs.
var runtimes = []string{"node", "nodejs", "bun", "deno", "python", "python3"}

// IsRuntime reports whether a process basename is an interpreter's (runtimes), with the
// decorations MatchesProcess accepts.
func IsRuntime(basename string) bool {
	if i := strings.LastIndexByte(basename, '/'); i >= 0 {
		basename = basename[i+1:]
	}
	return slices.Contains(runtimes, undecorate(basename))
}

// MatchesTitle reports whether title satisfies the agent's title patterns; true when the
// manifest lists none.
func (a *Agent) MatchesTitle(title string) bool {
	if len(a.TitlePatterns) == 0 {
		return true
	}
	for _, re := range a.TitlePatterns {
		if re.MatchString(title) {
			return true
		}
	}
	return false
}

// commLen is how many bytes of a process name the kernel (comm) and macOS libproc keep.
const commLen = 15

// MatchesProcess reports whether a process basename is one of the agent's process names.
// Beyond the exact name it accepts the decorations packagers add (nix's ".<name>-wrapped",
// a trailing ".exe") and the 15-byte truncation the kernel applies to process names.
func (a *Agent) MatchesProcess(basename string) bool {
	if i := strings.LastIndexByte(basename, '/'); i >= 0 {
		basename = basename[i+1:]
	}
	if basename == "" {
		return false
	}
	b := undecorate(basename)
	for _, n := range a.ProcessNames {
		if basename == n || b == n || b == undecorate(n) {
			return true
		}
		if len(basename) == commLen {
			for _, full := range []string{n, n + ".exe", "." + n + "-wrapped"} {
				if len(full) > commLen && full[:commLen] == basename {
					return true
				}
			}
		}
	}
	return false
}

// undecorate strips nix wrapper decoration (".foo-wrapped", possibly nested) and a
// trailing ".exe".
func undecorate(s string) string {
	for {
		inner, ok := strings.CutPrefix(s, ".")
		if !ok {
			break
		}
		inner, ok = strings.CutSuffix(inner, "-wrapped")
		if !ok || inner == "" {
			break
		}
		s = inner
	}
	if t, ok := strings.CutSuffix(s, ".exe"); ok && t != "" {
		s = t
	}
	return s
}

// MapEvent returns the first [[hooks.map]] entry for event whose matcher (if any) matches
// the raw payload, or nil: an unmapped event is a no-op.
func (a *Agent) MapEvent(event, payload string) *HookMap {
	if a.Hooks == nil {
		return nil
	}
	for i := range a.Hooks.Map {
		m := &a.Hooks.Map[i]
		if m.Event == event && (m.Matcher == nil || m.Matcher.MatchString(payload)) {
			return m
		}
	}
	return nil
}
