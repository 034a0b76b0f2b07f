package doctor

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/notify"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/screen"
	"github.com/tmaproject/tma/lib/telemetry"
	"github.com/tmaproject/tma/lib/tmux"
)

// AmbientStaleMS: a driver that has not run for this long is not polling.
// The stamp writes @tma_last_poll at least every 30 s while it runs.
const AmbientStaleMS = 60_000

// Report is the doctor --json document.
type Report struct {
	Schema            int          `json:"schema"`
	Server            dServer      `json:"server"`
	Config            dConfig      `json:"config"`
	Daemon            dDaemon      `json:"daemon"`
	AmbientDriver     dAmbient     `json:"ambient_driver"`
	Clients           dClients     `json:"clients"`
	StatusOption      dStatus      `json:"status_option"`
	Mouse             dMouse       `json:"mouse"`
	Keys              dKeys        `json:"keys"`
	Watch             dWatch       `json:"watch"`
	Wrapper           dWrapper     `json:"wrapper"`
	Notify            dNotify      `json:"notify"`
	TmuxHooks         []dHook      `json:"tmux_hooks"`
	Manifests         dManifests   `json:"manifests"`
	ProcessNameIssues []dNameIssue `json:"process_name_issues"`
	ProcessWalk       dWalk        `json:"process_walk"`
	Nested            []dPaneNote  `json:"nested_multiplexers"`
	RemotePanes       []dPaneNote  `json:"remote_panes"`
	IgnoredPanes      []dPaneNote  `json:"ignored_panes"`
	StampIssues       []dPaneNote  `json:"stamp_issues"`
	Agents            []dAgent     `json:"agents"`
	Actions           dActions     `json:"actions"`
	Fzf               dFzf         `json:"fzf"`
	Warnings          int          `json:"warnings"`
	BelowTier         int          `json:"below_tier"`
}

// dConfig is the config file doctor read: its path (null for none, the
// defaults) and, when it does not load, why (the report then uses the
// defaults).
type dConfig struct {
	Path  *string `json:"path"`
	OK    bool    `json:"ok"`
	Error *string `json:"error"`
}

type dServer struct {
	Socket      string `json:"socket"`
	Reachable   bool   `json:"reachable"`
	TmuxVersion string `json:"tmux_version"`
	Old         bool   `json:"older_than_3_6"`
	// Control is how followers (the daemon, wait, subscribe, watch) learn of
	// changes on this server: "own" (tma's own control client), "tmux"
	// (tmux -C) or "poll"; ControlWhy says why, for this version.
	Control    string `json:"control"`
	ControlWhy string `json:"control_why"`
}
type dDaemon struct {
	Alive       bool    `json:"alive"`
	Socket      string  `json:"socket"`
	Version     *string `json:"version"`
	VersionSkew bool    `json:"version_skew"`
	ReloadError *string `json:"reload_error"`
}
type dAmbient struct {
	Polling    bool   `json:"polling"`
	LastPollMS *int64 `json:"last_poll_ms"`
	AgeMS      *int64 `json:"age_ms"`
}
type dClients struct {
	Attached int  `json:"attached"`
	Warning  bool `json:"warning"`
}
type dStatus struct {
	On bool `json:"on"`
}
type dMouse struct {
	BindingsInstalled bool `json:"bindings_installed"`
	On                bool `json:"on"`
}
type dWatch struct {
	Watchers int `json:"watchers"`
}
type dWrapper struct {
	Ref     string  `json:"ref"`
	File    string  `json:"file"`
	OK      bool    `json:"ok"`
	Problem *string `json:"problem"`
}
type dNotify struct {
	Failed  bool    `json:"failed"`
	Trigger *string `json:"trigger"`
	Command *string `json:"command"`
	Reason  *string `json:"reason"`
}
type dHook struct {
	Hook  string `json:"hook"`
	State string `json:"state"`
}
type dManifests struct {
	Loaded  int        `json:"loaded"`
	Skipped []dSkipped `json:"skipped"`
}
type dSkipped struct {
	File  string `json:"file"`
	Error string `json:"error"`
}
type dNameIssue struct {
	Agent string `json:"agent"`
	Name  string `json:"name"`
}
type dWalk struct {
	OK bool `json:"ok"`
}
type dPaneNote struct {
	Pane    string `json:"pane"`
	Locator string `json:"locator"`
	Detail  string `json:"detail"`
}
type dAgent struct {
	Pane          string  `json:"pane"`
	Agent         string  `json:"agent"`
	Locator       string  `json:"locator"`
	Tier          int     `json:"tier"`
	TierReason    *string `json:"tier_reason"`
	State         *string `json:"state"`
	Detail        *string `json:"detail"`
	Source        *string `json:"source"`
	EvidenceAgeMS *int64  `json:"evidence_age_ms"`
	HookStatus    string  `json:"hook_status"`
	HookNote      *string `json:"hook_note"`
	HookDemoted   bool    `json:"hook_demoted"`
	Model         *string `json:"model"`
	// Mode is the agent's mode its screen names ([[modes]] of its manifest:
	// Claude's auto, acceptEdits, plan, bypassPermissions, default), null
	// when the screen names none or was not read.
	Mode *string `json:"mode"`
	API  *string `json:"api"` // a pending permission or question with no reachable endpoint
}
type dFzf struct {
	OK   bool   `json:"ok"`
	Line string `json:"line"`
}
type dActions struct {
	Loaded int      `json:"loaded"`
	Issues []string `json:"issues"`
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Facts is what the command observed of the server, the files and the
// daemon, gathered before any verdict; Diagnose turns it into the report
// and never asks anything itself, beyond the two questions it carries.
type Facts struct {
	NowMS int64
	// Socket names the server the globals point at, for when none answers.
	Socket string
	// Scan is one observation of every pane without captures; nil with
	// ScanErr (the failure, as the user reads it) when no server answered.
	Scan    *scan.Result
	ScanErr string
	Daemon  Daemon
	// TmuxHooks is the server's tma hooks against the wanted ones; Listed
	// is false when they could not be listed (no line then).
	TmuxHooks       []install.HookState
	TmuxHooksListed bool
	// Wrapper is the resolved tma-hook reference, or WrapperErr why none.
	Wrapper    *install.Wrapper
	WrapperErr error
	Manifests  *manifest.Set
	// Actions is the loaded action roster; ActionsErr a load that failed.
	Actions    *act.Set
	ActionsErr error
	// FzfLine is the fzf: line (info only), FzfOK whether fzf is usable.
	FzfLine string
	FzfOK   bool
	// Notify is the last failed notify command (nil: none); NotifyErr a
	// failure record that cannot be read.
	Notify    *notify.Failure
	NotifyErr error
	Options   Options
	// Keys is tma's bindings on the server and what each would run.
	Keys   Keys
	Config *config.Config
	// ConfigPath is the config file read ("" for none); ConfigErr why it
	// did not load, when it did not (Config is then the defaults).
	ConfigPath string
	ConfigErr  error
	// WatcherAlive says whether a @tma_watch_pid names a live process.
	WatcherAlive func(pid int) bool
	// HookStatus is an adapter's check of the agent's wiring (nil: not
	// wired); it is asked once per agent.
	HookStatus func(ad install.Adapter) *install.Status
	// APIProblem is the api: line for a pane ("" for none).
	APIProblem func(p *record.Pane, prior record.Prior) string
}

// Options is what doctor reads of the server's global options and root
// key table.
type Options struct {
	StatusRead, StatusOff      bool // the global status option was read, and is off
	MouseRead                  bool // list-keys and the mouse option were read
	BindingsInstalled, MouseOn bool
}

// Diagnose is doctor's verdict: the report and its text rendering. Every
// finding the manual calls a warning counts in Warnings; a pane below the
// tier its manifest supports counts in BelowTier.
func Diagnose(f Facts) (*Report, string) {
	doc := &Report{Schema: 1, TmuxHooks: []dHook{}, ProcessNameIssues: []dNameIssue{}, Nested: []dPaneNote{},
		RemotePanes: []dPaneNote{}, IgnoredPanes: []dPaneNote{}, StampIssues: []dPaneNote{}, Agents: []dAgent{},
		Manifests: dManifests{Skipped: []dSkipped{}}, Actions: dActions{Issues: []string{}}, ProcessWalk: dWalk{OK: true},
		Keys: dKeys{Bindings: []dKeyCall{}}}
	var b strings.Builder
	line := func(label, format string, a ...any) {
		fmt.Fprintf(&b, "%-9s%s\n", label, fmt.Sprintf(format, a...))
	}
	sub := func(format string, a ...any) { fmt.Fprintf(&b, "  "+format+"\n", a...) }
	warn := func() { doc.Warnings++ }
	now := f.NowMS
	doc.Server.Socket = f.Socket
	res := f.Scan
	serr := res == nil
	if !serr {
		doc.Server.Reachable, doc.Server.Socket, doc.Server.TmuxVersion = true, res.Cycle.Server, res.Cycle.TmuxVersion
		doc.Server.Old = olderThan(res.Cycle.TmuxVersion, 3, 6)
	}
	dm := f.Daemon
	doc.Daemon = dm.doc()

	doc.Config.OK = f.ConfigErr == nil
	if f.ConfigPath != "" {
		doc.Config.Path = &f.ConfigPath
	}
	if f.ConfigErr != nil {
		warn()
		doc.Config.Error = strp(f.ConfigErr.Error())
		line("config:", "%v — the report below uses the defaults in its place", f.ConfigErr)
	}
	if serr {
		line("server:", "%s", f.ScanErr)
		warn()
	}
	dm.lines(line)
	if !serr {
		// The status-line driver's own mark, not any cycle's (ls, the
		// picker and watch run cycles too); a running daemon drives every
		// cycle itself, and answers `tma status` without one.
		if res.Cycle.LastStatusMS > 0 {
			lp, age := res.Cycle.LastStatusMS, now-res.Cycle.LastStatusMS
			doc.AmbientDriver.LastPollMS, doc.AmbientDriver.AgeMS = &lp, &age
			doc.AmbientDriver.Polling = age <= AmbientStaleMS
		}
		switch {
		case doc.AmbientDriver.Polling:
			line("ambient:", "polling — `tma status` last ran %.1fs ago", float64(*doc.AmbientDriver.AgeMS)/1000)
		case doc.Daemon.Alive:
			doc.AmbientDriver.Polling = true
			line("ambient:", "the daemon drives every cycle (tier 3); `tma status` is answered from it")
		default:
			// The manual's line, and the other driver: a daemon, which also
			// keeps #{E:@tma_status} so the status line runs no process.
			line("ambient:", "NOT polling — nothing invokes `tma status`; add `#(tma status)` to status-right (required ambient driver), or run the daemon (`tma daemon --ensure`), which drives every cycle and keeps `#{E:@tma_status}` for the status line")
		}
		for _, cl := range res.Cycle.Clients {
			if !cl.Control {
				doc.Clients.Attached++
			}
		}
		if doc.Clients.Attached > 0 {
			line("clients:", "%d attached", doc.Clients.Attached)
		} else if dm.up() {
			line("clients:", "none attached — `#()` status jobs do not run detached; the daemon is keeping state fresh meanwhile")
		} else {
			doc.Clients.Warning = true
			warn()
			line("clients:", "none attached — `#()` status jobs only run while a client draws the status line, so nothing polls this server (run the daemon or attach a client)")
		}
		for _, p := range res.Panes {
			if pid, err := strconv.Atoi(p.Opts["@tma_watch_pid"]); err == nil && pid > 0 && f.WatcherAlive(pid) {
				doc.Watch.Watchers++
			}
		}
		if doc.Watch.Watchers > 0 {
			line("watch:", "%d watcher running (nudged on focus change)", doc.Watch.Watchers)
		} else {
			line("watch:", "no watcher running (`tma watch` advertises for SIGUSR1 nudges)")
		}
	}

	// The tmux server hooks.
	if !serr {
		if f.TmuxHooksListed {
			var parts, reasons []string
			for _, hs := range f.TmuxHooks {
				state := map[string]string{"ok": "ok", "stale": "drifted"}[hs.State]
				if state == "" {
					state = hs.State
				}
				doc.TmuxHooks = append(doc.TmuxHooks, dHook{Hook: hs.Hook, State: state})
				if hs.State == "ok" {
					parts = append(parts, hs.Hook+" ✓")
					continue
				}
				warn()
				parts = append(parts, hs.Hook+" ✗ "+state)
				reasons = append(reasons, hs.Problem())
			}
			line("hooks:", "%s", strings.Join(parts, "  "))
			for _, rs := range reasons {
				sub("%s", rs)
			}
		}
	}

	// The wrapper.
	switch {
	case f.WrapperErr != nil:
		warn()
		msg := strings.SplitN(f.WrapperErr.Error(), "\n", 2)[0]
		var np *install.ErrNotOnPath
		if errors.As(f.WrapperErr, &np) {
			msg = "tma-hook ✗ not on $PATH"
		}
		doc.Wrapper = dWrapper{Ref: "tma-hook", Problem: &msg}
		line("wrapper:", "%s", msg)
	case f.Wrapper.Mode == install.RefBare:
		doc.Wrapper = dWrapper{Ref: f.Wrapper.Ref, File: f.Wrapper.File, OK: true}
		line("wrapper:", "tma-hook ✓ on $PATH (%s)", f.Wrapper.File)
	default:
		doc.Wrapper = dWrapper{Ref: f.Wrapper.Ref, File: f.Wrapper.File, OK: true}
		if f.Wrapper.Ref == f.Wrapper.File {
			line("wrapper:", "%s ✓", f.Wrapper.Ref)
		} else {
			line("wrapper:", "%s ✓ (%s)", f.Wrapper.Ref, f.Wrapper.File)
		}
	}

	// Manifests and actions.
	ms := f.Manifests
	doc.Manifests.Loaded = len(ms.All())
	for _, p := range ms.Problems() {
		doc.Manifests.Skipped = append(doc.Manifests.Skipped, dSkipped{File: p.File, Error: p.Err.Error()})
		warn()
	}
	for _, a := range ms.All() {
		for _, n := range a.ProcessNames {
			// Matching truncates a long name to the kernel's 15-character
			// comm, as the kernel does, so such an entry matches: say how.
			if len(n) > 15 && !truncatedListed(a.ProcessNames, n) {
				doc.ProcessNameIssues = append(doc.ProcessNameIssues, dNameIssue{Agent: a.Name, Name: n})
			}
		}
	}
	// "no issues" only when nothing is listed under it: a long
	// process_names entry is a note (it matches, by truncation), not a
	// warning, but it is listed, and counted in the line (D-299).
	skips, notes := len(doc.Manifests.Skipped), len(doc.ProcessNameIssues)
	switch {
	case skips == 0 && notes == 0:
		line("agents:", "%d loaded, no issues", doc.Manifests.Loaded)
	case skips == 0:
		line("agents:", "%d loaded, %s:", doc.Manifests.Loaded, plural(notes, "note"))
	case notes == 0:
		line("agents:", "%d loaded, %d skipped:", doc.Manifests.Loaded, skips)
	default:
		line("agents:", "%d loaded, %d skipped, %s:", doc.Manifests.Loaded, skips, plural(notes, "note"))
	}
	for _, s := range doc.Manifests.Skipped {
		sub("- %s", s.Error)
	}
	for _, n := range doc.ProcessNameIssues {
		sub("- %s: process_names entry %q is longer than 15 characters: it matches a process whose kernel name (comm) is its first 15, %q", n.Agent, n.Name, n.Name[:15])
	}
	// The action roster: skipped user files and actions naming an agent no
	// manifest defines are warnings, one line each.
	acts := f.Actions
	var skipped []string
	if f.ActionsErr != nil || acts == nil {
		if f.ActionsErr != nil {
			skipped = append(skipped, f.ActionsErr.Error())
		}
		acts = &act.Set{}
	}
	for _, p := range acts.Problems {
		skipped = append(skipped, p.Err.Error())
	}
	unknown := acts.UnknownAgents(func(n string) bool { return ms.Get(n) != nil })
	doc.Actions.Loaded = len(acts.Actions)
	doc.Actions.Issues = append(append(doc.Actions.Issues, skipped...), unknown...)
	for range doc.Actions.Issues {
		warn()
	}
	switch {
	case len(doc.Actions.Issues) == 0:
		line("actions:", "%d loaded, no issues", doc.Actions.Loaded)
	case len(unknown) == 0:
		line("actions:", "%d loaded, %d skipped:", doc.Actions.Loaded, len(skipped))
	default:
		line("actions:", "%d loaded, %d skipped, %d naming an unknown agent:", doc.Actions.Loaded, len(skipped), len(unknown))
	}
	for _, s := range doc.Actions.Issues {
		sub("- %s", s)
	}
	// fzf is an info line: only the picker needs it, and the manual's list
	// of warnings does not name it.
	doc.Fzf = dFzf{OK: f.FzfOK, Line: strings.TrimSpace(strings.TrimPrefix(f.FzfLine, "fzf:"))}
	b.WriteString(f.FzfLine + "\n")

	// The last failed notify command, until a clean fire clears it.
	if nf := f.Notify; nf != nil {
		warn()
		doc.Notify = dNotify{Failed: true, Trigger: &nf.Trigger, Command: &nf.Command, Reason: &nf.Reason}
		line("notify:", "%s: `%s` (the last %s fire, %s) — run `%s` to see its stderr",
			nf.Reason, nf.Command, nf.Trigger, time.UnixMilli(nf.AtMS).Format("2006-01-02 15:04:05"), notify.TestCommand(nf.Trigger))
	} else if f.NotifyErr != nil {
		warn()
		line("notify:", "%v", f.NotifyErr)
	}

	if serr {
		doc.ProcessWalk.OK = true
		b.WriteString("\npanes (0):\n")
		return doc, b.String()
	}
	if doc.Server.Old {
		line("tmux:", "%s is older than 3.6 — tma is developed and tested against 3.6 or newer (it runs on 3.3+; upgrade tmux if something misbehaves)", doc.Server.TmuxVersion)
	}
	// Information, not a warning: which way followers hear of changes.
	choice := tmux.ControlFor(doc.Server.TmuxVersion)
	if f.Config != nil && !f.Config.Tmux.ControlClients {
		choice = tmux.ControlChoice{Mode: tmux.ControlPoll, Why: "`[tmux] control_clients = false` in config.toml"}
	}
	doc.Server.Control, doc.Server.ControlWhy = choice.Mode.String(), choice.Why
	switch choice.Mode {
	case tmux.ControlOwn:
		line("control:", "push, through tma's own control client — %s", choice.Why)
	case tmux.ControlTmux:
		line("control:", "push, through tmux -C — %s", choice.Why)
	default:
		line("control:", "polling, no control client (a change is seen within about half a second) — %s", choice.Why)
	}
	if f.Options.StatusRead && f.Options.StatusOff {
		warn()
		line("status:", "the global `status` option is off — the `#(tma status)` driver never runs and `display-message` notifications are invisible (`tmux set -g status on`)")
	} else {
		doc.StatusOption.On = true
	}
	// The status-line click bindings (install-keys --mouse) do nothing
	// while tmux's mouse is off, and tma never turns it on.
	if f.Options.MouseRead {
		doc.Mouse.BindingsInstalled, doc.Mouse.On = f.Options.BindingsInstalled, f.Options.MouseOn
		if doc.Mouse.BindingsInstalled && !doc.Mouse.On {
			warn()
			line("mouse:", "the status-line click bindings are installed but `mouse` is off — they do nothing until you `tmux set -g mouse on` (tma never sets it)")
		}
	}

	// A binding that names a tma the server cannot run fails with 127 and
	// nothing on screen: the picker popup opens and closes.
	doc.Keys = f.Keys.line(line, warn)

	// Out-of-scope panes, and stamps tma cannot read.
	var agents []*record.Pane
	for _, p := range res.Panes {
		loc := p.Locator()
		prior := record.ParsePrior(p.Opts)
		if p.Procs < 0 {
			doc.ProcessWalk.OK = false
		}
		switch {
		case p.Class == record.ClassIgnored:
			doc.IgnoredPanes = append(doc.IgnoredPanes, dPaneNote{p.Pane, loc, p.Opts["@agent_ignore"]})
			continue
		case p.Class == record.ClassNested:
			doc.Nested = append(doc.Nested, dPaneNote{p.Pane, loc, p.Command})
			continue
		case p.Class == record.ClassRemote && p.Agent == "":
			d := p.Command
			if prior.State != "" || prior.Name != "" {
				d += "; its @agent_* options are held, not refreshed"
			}
			doc.RemotePanes = append(doc.RemotePanes, dPaneNote{p.Pane, loc, d})
			continue
		case p.Class == record.ClassRemote:
			doc.RemotePanes = append(doc.RemotePanes, dPaneNote{p.Pane, loc, p.Command + "; registered, hook events only"})
		}
		switch {
		case prior.Foreign != "":
			doc.StampIssues = append(doc.StampIssues, dPaneNote{p.Pane, loc, "@agent_state = " + prior.Foreign + " is not a state token"})
			warn()
		case prior.State != "" && p.Opts["@agent_stamped_at"] == "":
			doc.StampIssues = append(doc.StampIssues, dPaneNote{p.Pane, loc, "@agent_state = " + prior.State + " with no @agent_stamped_at: another tool wrote it"})
			warn()
		}
		if p.Agent != "" {
			agents = append(agents, p)
		}
	}
	if !doc.ProcessWalk.OK {
		warn()
		line("procs:", "the process walk failed — detection cannot see what runs in a pane; only hook-registered panes are listed below")
	}
	section := func(label, head string, notes []dPaneNote, render func(dPaneNote) string) {
		if len(notes) == 0 {
			return
		}
		line(label, "%d pane(s) %s", len(notes), head)
		for _, n := range notes {
			sub("- %s %s (%s)", n.Pane, n.Locator, render(n))
		}
	}
	section("remote:", "behind a remote shell — an agent there reports only if it can reach this tmux socket (see docs/how-to/agents-in-containers.md)", doc.RemotePanes, func(n dPaneNote) string { return n.Detail })
	section("ignored:", "excluded from detection — unset the option to bring one back (`tmux set-option -pu -t <pane> @agent_ignore`)", doc.IgnoredPanes, func(n dPaneNote) string { return "ignored via @agent_ignore = " + n.Detail })
	section("nested:", "running a multiplexer client — agent state lives on the inner server; run tma there", doc.Nested, func(n dPaneNote) string { return n.Detail })
	section("stamps:", "carry a stamp tma cannot decode or did not write", doc.StampIssues, func(n dPaneNote) string { return n.Detail })

	// The per-pane blocks.
	sort.SliceStable(agents, func(i, j int) bool { return agents[i].Locator() < agents[j].Locator() })
	status := map[string]*install.Status{}
	fmt.Fprintf(&b, "\npanes (%d):\n", len(agents))
	for _, p := range agents {
		a := ms.Get(p.Agent)
		da := dAgent{Pane: p.Pane, Agent: p.Agent, Locator: p.Locator(), Tier: 1, Model: strp(p.Opts["@agent_model"])}
		prior := record.ParsePrior(p.Opts)
		head := "unstamped"
		if prior.State != "" {
			age := now - prior.EvidenceAt
			da.State, da.Detail, da.Source, da.EvidenceAgeMS = strp(prior.State), strp(prior.Detail), strp(prior.Source), &age
			head = fmt.Sprintf("%s%s (%s, %.1fs ago)", prior.State, slashed(prior.Detail), prior.Source, float64(age)/1000)
		}
		ad := install.Lookup(p.Agent)
		supports := 1
		switch {
		case a == nil || a.Hooks == nil:
			da.HookStatus = "hookless"
		case ad == nil:
			da.HookStatus = "no_adapter"
		default:
			supports = 2
			st, ok := status[p.Agent]
			if !ok {
				st = f.HookStatus(ad)
				status[p.Agent] = st
			}
			switch {
			case st == nil || !st.Wired:
				da.HookStatus = "not_installed"
			case len(st.Problems) > 0:
				da.HookStatus = "incomplete"
				warn()
			default:
				da.HookStatus, da.Tier = "wired", 2
				for _, n := range st.Notes {
					if strings.Contains(n, "chained") {
						da.HookNote = strp(n)
					}
				}
			}
		}
		var reason string
		switch {
		case da.Tier == 2 && dm.up():
			da.Tier = 3
		case da.Tier == 2:
			reason = "not tier 3: daemon not running (events direct-stamp; run `tma daemon --ensure` for the daemon tier)"
		case da.HookStatus == "not_installed":
			reason = fmt.Sprintf("not tier 2: hooks not installed for %s (run `tma install-hooks %s`)", p.Agent, p.Agent)
		case da.HookStatus == "incomplete":
			reason = fmt.Sprintf("not tier 2: hook wiring for %s is incomplete (run `tma install-hooks --check`, then `tma install-hooks %s`)", p.Agent, p.Agent)
		case da.HookStatus == "hookless":
			reason = fmt.Sprintf("not tier 2: %s is hookless (screen detection only, so there is no hook tier to reach)", p.Agent)
		default:
			reason = fmt.Sprintf("not tier 2: tma ships no install-hooks adapter for %s; wire its hooks by hand to call tma-hook %s <event>", p.Agent, p.Agent)
		}
		if da.Tier == 1 && dm.up() {
			reason += "; a daemon is running and provides fallback capture (tier 3)"
		}
		da.TierReason = strp(reason)
		if da.Tier < supports {
			doc.BelowTier++
		}
		// Demoted is the daemon's verdict on the pane's hooks (lib/fold's
		// demote.go), not any capture verdict on a registered pane: a
		// blocked prompt drawn before its hook fired is the screen winning
		// a race, not suspect wiring.
		da.HookDemoted = prior.IsDemoted()
		fmt.Fprintf(&b, "  %-5s%-11s%-13stier %d   %s\n", p.Pane, p.Agent, p.Locator(), da.Tier, head)
		hl := map[string]string{"wired": "wired", "incomplete": "incomplete", "not_installed": "not installed", "hookless": "none (hookless agent)", "no_adapter": "no adapter"}[da.HookStatus]
		if da.HookNote != nil {
			// The manual's words: wired (agent codex: notify chained
			// through <program>); the JSON's hook_note is the note alone.
			hl += " (agent " + p.Agent + ": " + *da.HookNote + ")"
		}
		fmt.Fprintf(&b, "       hooks: %s\n", hl)
		if da.HookDemoted {
			warn()
			fmt.Fprintf(&b, "       demoted: registered through a hook, but its state came from the screen (run `tma install-hooks --check`)\n")
		}
		if a != nil && p.Capture != nil {
			if m, line := a.ScreenMode(screen.Screen{Raw: p.Capture.Text, Title: p.Title, Height: p.Height}); m != "" {
				da.Mode = &m
				fmt.Fprintf(&b, "       mode: %s (the screen: %s)\n", m, record.Printable(line))
			}
		}
		if da.Model != nil {
			fmt.Fprintf(&b, "       model: %s\n", *da.Model)
			// A label, not a warning, and only where a channel would size its
			// gauge from [telemetry.windows]: no compiled-in format does.
			if a != nil && a.Telemetry != nil && a.Telemetry.Context != nil && !telemetry.CarriesWindow(a.Telemetry.Context.Format) && !f.Config.ModelRecognized(*da.Model) {
				fmt.Fprintf(&b, "       unrecognized: no [telemetry.windows] entry names it\n")
			}
		}
		if msg := f.APIProblem(p, prior); msg != "" {
			warn()
			da.API = &msg
			fmt.Fprintf(&b, "       api: %s\n", msg)
		}
		if reason != "" {
			fmt.Fprintf(&b, "       %s\n", reason)
		}
		doc.Agents = append(doc.Agents, da)
	}
	return doc, b.String()
}

func slashed(d string) string {
	if d == "" {
		return ""
	}
	return "/" + d
}

func truncatedListed(names []string, n string) bool {
	for _, m := range names {
		if m == n[:15] {
			return true
		}
	}
	return false
}

// olderThan compares a tmux version ("3.3a", "next-3.8", "master") with major.minor.
func olderThan(v string, major, minor int) bool {
	v = strings.TrimPrefix(v, "next-")
	var ma, mi int
	if _, err := fmt.Sscanf(v, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma < major || ma == major && mi < minor
}

// plural is "1 note", "2 notes".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
