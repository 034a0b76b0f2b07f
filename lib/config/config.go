package config

import (
	"fmt"
	"slices"
	"strings"
)

// Env looks up one environment variable; os.LookupEnv satisfies it. Every environment read in this
// package goes through one, so tests stay hermetic. The "set at all" rule of
// TMA_NOTIFY_FROM_EVENT needs the second result.
type Env func(key string) (string, bool)

// The state classes that [status] and [picker] style.
const (
	ClassBlocked = "blocked"
	ClassWorking = "working"
	ClassIdle    = "idle"
	ClassDone    = "done"
	ClassUnknown = "unknown"
)

// The notification triggers. Only TriggerBlocked and TriggerDone may appear in [notify] on;
// TriggerContextHigh and TriggerStall are armed by naming their own sub-table.
const (
	TriggerBlocked     = "blocked"
	TriggerDone        = "done"
	TriggerContextHigh = "context_high"
	TriggerStall       = "stall"
)

// The values of [install] wrapper_ref.
const (
	WrapperBare     = "bare"
	WrapperAbsolute = "absolute"
)

// Bounds of [hooks] claude_reply_lane hold_ms, inclusive, and its default.
const (
	HoldMSMin     = 1000
	HoldMSMax     = 590000
	HoldMSDefault = 25000
)

// Config is the whole config.toml. Fields hold what the file says over the defaults; values that an
// environment variable can override are read through the methods (TmuxBin, NotifyFromEvent,
// NotifyCommand), never straight from the fields.
type Config struct {
	Fold      Fold           `toml:"fold"`
	Status    Styles         `toml:"status"`
	Picker    Styles         `toml:"picker"`
	Notify    Notify         `toml:"notify"`
	Act       Act            `toml:"act"`
	Serve     Serve          `toml:"serve"`
	Focus     Focus          `toml:"focus"`
	Install   Install        `toml:"install"`
	Hooks     Hooks          `toml:"hooks"`
	Tmux      Tmux           `toml:"tmux"`
	Telemetry Telemetry      `toml:"telemetry"`
	Daemon    Daemon         `toml:"daemon"`
	Keys      Keys           `toml:"keys"`
	Agents    []Agent        `toml:"agent"`
	API       map[string]API `toml:"api"`
	Remotes   []Remote       `toml:"remote"`
}

// Fold is [fold]: state-machine tuning, in seconds.
type Fold struct {
	DwellSecs        int `toml:"dwell_secs"`
	HookDecaySecs    int `toml:"hook_decay_secs"`
	BlockedDecaySecs int `toml:"blocked_decay_secs"`
	// FreshnessSecs is accepted and checked but read by nothing: a cycle
	// that skipped a freshly stamped pane would lag blocked detection
	// (docs/config.md, the decision under [fold]).
	FreshnessSecs int `toml:"freshness_secs"`
}

// Style is one { glyph, color } entry. Color is stored as written: a tmux colour string for
// [status], the picker's colour vocabulary for [picker].
type Style struct {
	Glyph string `toml:"glyph"`
	Color string `toml:"color"`
}

// Styles is [status] or [picker]: one Style per state class.
type Styles struct {
	Blocked Style `toml:"blocked"`
	Working Style `toml:"working"`
	Idle    Style `toml:"idle"`
	Done    Style `toml:"done"`
	Unknown Style `toml:"unknown"`
}

// For returns the style of a class; a class that is none of the five gets the unknown style.
func (s Styles) For(class string) Style {
	switch class {
	case ClassBlocked:
		return s.Blocked
	case ClassWorking:
		return s.Working
	case ClassIdle:
		return s.Idle
	case ClassDone:
		return s.Done
	}
	return s.Unknown
}

// Notify is [notify]. Empty strings mean unset; a nil ContextHigh or Stall is off.
type Notify struct {
	FromEvent    bool         `toml:"from_event"`
	Command      string       `toml:"command"`
	On           []string     `toml:"on"`
	Bell         bool         `toml:"bell"`
	OSC          bool         `toml:"osc"`
	OSC777       bool         `toml:"osc_777"`
	OSCProgress  bool         `toml:"osc_progress"`
	Log          string       `toml:"log"`
	IncludeTitle bool         `toml:"include_title"`
	ContextHigh  *ContextHigh `toml:"context_high"`
	Stall        *Stall       `toml:"stall"`
	Blocked      Route        `toml:"blocked"`
	Done         Route        `toml:"done"`
}

// Route is a [notify.blocked] or [notify.done] sub-table.
type Route struct {
	Command string `toml:"command"`
}

// ContextHigh is [notify.context_high]: fire once when context use crosses Threshold percent.
type ContextHigh struct {
	Threshold int    `toml:"threshold"`
	Command   string `toml:"command"`
}

// Stall is [notify.stall]: fire once when a pane has been working ThresholdS seconds.
type Stall struct {
	ThresholdS int    `toml:"threshold_s"`
	Command    string `toml:"command"`
}

// Act is [act].
type Act struct {
	Log string `toml:"log"`
}

// Serve is [serve].
type Serve struct {
	ReconcileIntervalMS int       `toml:"reconcile_interval_ms"`
	MaxConnections      int       `toml:"max_connections"`
	HTTP                ServeHTTP `toml:"http"`
}

// DefaultHTTPListen is where `tma serve --http` listens when neither the
// command line nor [serve.http] listen says: loopback only.
const DefaultHTTPListen = "127.0.0.1:7878"

// ServeHTTP is [serve.http]: the web face of tma serve (docs/serve.md).
type ServeHTTP struct {
	// Enabled makes the daemon host it for as long as the tmux server lives.
	Enabled bool   `toml:"enabled"`
	Listen  string `toml:"listen"`
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// PublicURL is the address a phone reaches it by (a tailscale serve
	// name, an https front): the pairing URL and the notify payload's url
	// are made from it.
	PublicURL string `toml:"public_url"`
	// Hosts are further Host header names the server answers to (the
	// loopback names and public_url's are always allowed).
	Hosts []string `toml:"hosts"`
}

// Focus is [focus].
type Focus struct {
	Events bool `toml:"events"`
}

// Install is [install]. WrapperRef is WrapperBare or WrapperAbsolute.
type Install struct {
	WrapperRef string `toml:"wrapper_ref"`
}

// Hooks is [hooks].
type Hooks struct {
	ClaudeReplyLane ReplyLane `toml:"claude_reply_lane"`
}

// ReplyLane is [hooks] claude_reply_lane: `{ hold_ms = N }` (on) or `false` (off). HoldMS keeps its
// value when the lane is off and means nothing then.
type ReplyLane struct {
	Enabled bool
	HoldMS  int
}

// Tmux is [tmux]. ControlClients false keeps every follower to polling,
// with no control-mode client on the server at all, for a person who would
// rather pay the poll's latency (docs/config.md, docs/architecture.md).
type Tmux struct {
	Bin            string `toml:"bin"`
	ControlClients bool   `toml:"control_clients"`
}

// Telemetry is [telemetry].
type Telemetry struct {
	// Windows maps model names to window sizes; only the names are read.
	Windows map[string]int64 `toml:"windows"`
}

// Daemon is [daemon]. A nil WindowNames is off.
// Keys chooses the prefix key of each binding install-keys writes (and the
// TPM plugin binds, under its @tma-key-* options). Unset takes the default;
// "" or "none" leaves the binding out.
type Keys struct {
	Picker    *string `toml:"picker"`
	Watch     *string `toml:"watch"`
	Attention *string `toml:"attention"`
	Blocked   *string `toml:"blocked"`
	Back      *string `toml:"back"`
	Home      *string `toml:"home"`
	Menu      *string `toml:"menu"`
}

// KeyNames are the bindings [keys] names, in the managed file's order.
var KeyNames = []string{"picker", "watch", "attention", "blocked", "back", "home", "menu"}

// Chosen maps each binding the config names to its key ("" for none).
func (k Keys) Chosen() map[string]string {
	out := map[string]string{}
	for i, v := range []*string{k.Picker, k.Watch, k.Attention, k.Blocked, k.Back, k.Home, k.Menu} {
		if v != nil {
			out[KeyNames[i]] = NormalKey(*v)
		}
	}
	return out
}

// NormalKey is a chosen key as bound: "none" (any case) and "" are no key.
func NormalKey(v string) string {
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return ""
	}
	return strings.TrimSpace(v)
}

// keyRE is a key name tmux takes: modifiers, then one printable character
// or a named key (F5, Enter, PPage, ...).
var keyRE = lazyRE(`^(?:[CMS]-)*(?:[!-~]|[A-Za-z][A-Za-z0-9]+)$`)

// CheckKey says what is wrong with a chosen key ("" when tmux takes it).
func CheckKey(k string) string {
	if k == "" || keyRE().MatchString(k) {
		return ""
	}
	return fmt.Sprintf("%q is not a tmux key name (a character such as g or G, optionally after C-, M- or S-; a named key such as F5; or \"none\")", k)
}

type Daemon struct {
	SweepSecs             int          `toml:"sweep_secs"`
	QuietMS               int          `toml:"quiet_ms"`
	ZeroMemberRecheckSecs int          `toml:"zero_member_recheck_secs"`
	DemoteEdges           int          `toml:"demote_edges"`
	Autostart             bool         `toml:"autostart"`
	RestartOnUpgrade      bool         `toml:"restart_on_upgrade"`
	WindowNames           *WindowNames `toml:"window_names"`
}

// WindowNames is [daemon.window_names]. Format uses only the tokens of WindowNameTokens.
type WindowNames struct {
	Format string `toml:"format"`
}

// WindowNameTokens are the tokens [daemon.window_names] format may use.
var WindowNameTokens = []string{"agent", "state", "detail", "repo", "branch"}

// Agent is one [[agent]] override.
type Agent struct {
	Name         string   `toml:"name"`
	Enabled      bool     `toml:"enabled"`
	ProcessNames []string `toml:"process_names"`
}

// API is one [api.<agent>] table.
type API struct {
	APIBase string `toml:"api_base"`
}

// Default returns the built-in defaults: the manual's full example. Each call returns fresh maps
// and slices.
func Default() *Config {
	return &Config{
		Fold: Fold{DwellSecs: 3, HookDecaySecs: 60, BlockedDecaySecs: 300, FreshnessSecs: 3},
		Status: Styles{
			Blocked: Style{"⚑", "red"},
			Working: Style{"●", "yellow"},
			Idle:    Style{"○", "green"},
			Done:    Style{"✓", "magenta"},
			Unknown: Style{"?", "colour244"},
		},
		Picker: Styles{
			Blocked: Style{"⚑", "red"},
			Working: Style{"●", "yellow"},
			Idle:    Style{"○", "green"},
			Done:    Style{"✓", "magenta"},
			Unknown: Style{"?", "darkgray"},
		},
		Notify:  Notify{On: []string{TriggerBlocked}},
		Serve:   Serve{ReconcileIntervalMS: 2000, MaxConnections: 4, HTTP: ServeHTTP{Listen: DefaultHTTPListen}},
		Install: Install{WrapperRef: WrapperBare},
		Hooks:   Hooks{ClaudeReplyLane: ReplyLane{Enabled: true, HoldMS: HoldMSDefault}},
		Telemetry: Telemetry{Windows: map[string]int64{
			"gemini-2.5-pro":        1048576,
			"gemini-2.5-flash":      1048576,
			"gemini-2.5-flash-lite": 1048576,
		}},
		Tmux: Tmux{ControlClients: true},
		Daemon: Daemon{
			SweepSecs:             45,
			QuietMS:               1000,
			ZeroMemberRecheckSecs: 1,
			DemoteEdges:           5,
			RestartOnUpgrade:      true,
		},
	}
}

// StatusStyle is the [status] style of a state class (see Styles.For).
func (c *Config) StatusStyle(class string) Style { return c.Status.For(class) }

// PickerStyle is the [picker] style of a state class (see Styles.For).
func (c *Config) PickerStyle(class string) Style { return c.Picker.For(class) }

// TmuxBin is the tmux binary to spawn: TMA_TMUX_BIN (when non-empty), then [tmux] bin, then "tmux".
func (c *Config) TmuxBin(env Env) string {
	if v, ok := env("TMA_TMUX_BIN"); ok && v != "" {
		return v
	}
	if c.Tmux.Bin != "" {
		return c.Tmux.Bin
	}
	return "tmux"
}

// NotifyFromEvent is the effective from_event: TMA_NOTIFY_FROM_EVENT decides whenever it is set
// at all (exactly "1" is on, anything else, "" included, is off); unset leaves the file's value.
func (c *Config) NotifyFromEvent(env Env) bool {
	if v, ok := env("TMA_NOTIFY_FROM_EVENT"); ok {
		return v == "1"
	}
	return c.Notify.FromEvent
}

// NotifyCommand is the command a trigger runs: TMA_NOTIFY_CMD whenever it is set at all (so an
// empty value silences every command), then the trigger's own sub-table command, then the global
// notify command. Any other trigger (for one, "" for a detached action's completion) gets the
// global command. The result is "" when no command is configured.
func (c *Config) NotifyCommand(trigger string, env Env) string {
	if v, ok := env("TMA_NOTIFY_CMD"); ok {
		return v
	}
	var own string
	switch trigger {
	case TriggerBlocked:
		own = c.Notify.Blocked.Command
	case TriggerDone:
		own = c.Notify.Done.Command
	case TriggerContextHigh:
		if c.Notify.ContextHigh != nil {
			own = c.Notify.ContextHigh.Command
		}
	case TriggerStall:
		if c.Notify.Stall != nil {
			own = c.Notify.Stall.Command
		}
	}
	if own != "" {
		return own
	}
	return c.Notify.Command
}

// NotifyFires reports whether a trigger is armed: blocked and done when [notify] on lists them,
// context_high and stall when their sub-table is configured.
func (c *Config) NotifyFires(trigger string) bool {
	switch trigger {
	case TriggerBlocked, TriggerDone:
		return slices.Contains(c.Notify.On, trigger)
	case TriggerContextHigh:
		return c.Notify.ContextHigh != nil
	case TriggerStall:
		return c.Notify.Stall != nil
	}
	return false
}

// NotifyLog is [notify] log with a leading ~ expanded against home; "" when unset.
func (c *Config) NotifyLog(home string) string { return ExpandHome(c.Notify.Log, home) }

// ActLog is [act] log with a leading ~ expanded against home; "" when unset.
func (c *Config) ActLog(home string) string { return ExpandHome(c.Act.Log, home) }

// Agent returns the [[agent]] override for an agent name, if any.
func (c *Config) Agent(name string) (Agent, bool) {
	for _, a := range c.Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// APIBase is [api.<agent>] api_base, "" when unset.
func (c *Config) APIBase(agent string) string { return c.API[agent].APIBase }

// ModelRecognized reports whether [telemetry.windows] names a model.
func (c *Config) ModelRecognized(model string) bool {
	_, ok := c.Telemetry.Windows[model]
	return ok
}

// ExpandHome expands a leading "~" or "~/" in path against home. "~user" forms, and any path when
// home is "", are returned unchanged.
func ExpandHome(path, home string) string {
	if home == "" {
		return path
	}
	if path == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return strings.TrimSuffix(home, "/") + "/" + rest
	}
	return path
}
