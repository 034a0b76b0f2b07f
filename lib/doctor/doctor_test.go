package doctor

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/notify"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/testkit"
)

const now = int64(1_700_000_000_000)

// healthy is a server doctor finds nothing wrong with: reachable, a client
// attached, the status-line driver polling, hooks in place, the wrapper on
// $PATH, nothing on the panes, fzf usable and status on.
func healthy(t *testing.T, panes ...*record.Pane) Facts {
	t.Helper()
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := act.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return Facts{
		NowMS:  now,
		Socket: "/tmp/tmux-1/default",
		Scan: &scan.Result{Cycle: &record.Cycle{Server: "/tmp/tmux-1/default", TmuxVersion: "3.6",
			LastStatusMS: now - 2000, Clients: []record.Client{{Name: "/dev/pts/1"}}}, Panes: panes},
		Daemon:          Daemon{Socket: "/run/tma/d.sock", CLIVersion: "0.1.0"},
		TmuxHooks:       []install.HookState{{Hook: "after-select-pane", State: "ok"}},
		TmuxHooksListed: true,
		Wrapper:         &install.Wrapper{File: "/usr/bin/tma-hook", Ref: "tma-hook", Mode: install.RefBare},
		Manifests:       ms,
		Actions:         acts,
		FzfLine:         "fzf:     0.65.2 ✓ (/usr/bin/fzf)",
		FzfOK:           true,
		Options:         Options{StatusRead: true, MouseRead: true},
		Config:          config.Default(),
		WatcherAlive:    func(int) bool { return false },
		HookStatus:      func(install.Adapter) *install.Status { return &install.Status{Wired: true} },
		APIProblem:      func(*record.Pane, record.Prior) string { return "" },
	}
}

func agentPane(id, agent string, opts map[string]string) *record.Pane {
	if opts == nil {
		opts = map[string]string{}
	}
	return &record.Pane{Pane: id, Session: "s", Window: 1, Agent: agent, Command: agent, Procs: 2, Opts: opts}
}

func stamped(state, detail, source string) map[string]string {
	return map[string]string{"@agent_name": "claude", "@agent_state": state, "@agent_detail": detail,
		"@agent_source": source, "@agent_evidence_at": "1699999999000", "@agent_stamped_at": "1699999999500"}
}

// TestCrushPaneIsScreenOnly: Crush's manifest has no [hooks] (its one hook
// event, PreToolUse, tells no idle or blocked), so doctor names its pane at
// the screen tier with the reason, and counts it below no tier it supports.
func TestCrushPaneIsScreenOnly(t *testing.T) {
	opts := stamped("blocked", "permission", "screen")
	opts["@agent_name"] = "crush"
	f := healthy(t, agentPane("%3", "crush", opts))
	f.Daemon.Up, f.Daemon.Version = true, "0.1.0"
	doc, text := Diagnose(f)
	if doc.Warnings != 0 || doc.BelowTier != 0 || len(doc.Agents) != 1 || doc.Agents[0].Agent != "crush" || doc.Agents[0].HookStatus != "hookless" {
		t.Fatalf("warnings %d, below tier %d, agents %+v:\n%s", doc.Warnings, doc.BelowTier, doc.Agents, text)
	}
	if m := f.Manifests.Get("crush"); m == nil || m.Hooks != nil {
		t.Fatalf("the bundled crush manifest: %+v", m)
	}
	for _, want := range []string{"crush", "blocked/permission (screen, ", "hooks: none (hookless agent)", "crush is hookless (screen detection only"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestHealthyServerHasNoFindings: nothing to warn about, every agent at
// the tier its manifest supports, and the JSON document keeps its keys.
func TestHealthyServerHasNoFindings(t *testing.T) {
	f := healthy(t, agentPane("%1", "claude", stamped("idle", "", "hook")))
	f.Daemon.Up, f.Daemon.Version = true, "0.1.0"
	doc, text := Diagnose(f)
	if doc.Warnings != 0 || doc.BelowTier != 0 {
		t.Fatalf("warnings %d, below tier %d:\n%s", doc.Warnings, doc.BelowTier, text)
	}
	if len(doc.Agents) != 1 || doc.Agents[0].Tier != 3 || doc.Agents[0].TierReason != nil {
		t.Fatalf("agents %+v", doc.Agents)
	}
	for _, want := range []string{"daemon:  running (/run/tma/d.sock)\n", "ambient: polling — `tma status` last ran 2.0s ago\n",
		"clients: 1 attached\n", "hooks:   after-select-pane ✓\n", "wrapper: tma-hook ✓ on $PATH (/usr/bin/tma-hook)\n",
		"\npanes (1):\n", "tier 3   idle (hook, 1.0s ago)\n", "       hooks: wired\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if k := testkit.KeyOrder(t, string(b)); k != "schema server config daemon ambient_driver clients status_option mouse keys watch wrapper notify tmux_hooks manifests process_name_issues process_walk nested_multiplexers remote_panes ignored_panes stamp_issues agents actions fzf warnings below_tier" {
		t.Errorf("report keys: %s", k)
	}
}

// TestTiers: a wired agent is tier 2 without a daemon (and says why not
// 3), tier 3 with one; an agent whose hooks are not installed is tier 1 and
// below the tier its manifest supports; incomplete wiring is a warning too.
func TestTiers(t *testing.T) {
	f := healthy(t, agentPane("%1", "claude", nil))
	doc, _ := Diagnose(f)
	a := doc.Agents[0]
	if a.Tier != 2 || a.TierReason == nil || !strings.HasPrefix(*a.TierReason, "not tier 3: daemon not running") || doc.BelowTier != 0 {
		t.Fatalf("wired, no daemon: %+v (below %d)", a, doc.BelowTier)
	}

	f.HookStatus = func(install.Adapter) *install.Status { return &install.Status{} }
	doc, _ = Diagnose(f)
	a = doc.Agents[0]
	if a.Tier != 1 || a.HookStatus != "not_installed" || !strings.Contains(*a.TierReason, "run `tma install-hooks claude`") || doc.BelowTier != 1 || doc.Warnings != 0 {
		t.Fatalf("not installed: %+v (below %d, warnings %d)", a, doc.BelowTier, doc.Warnings)
	}

	f.Daemon.Up = true
	f.Daemon.Version = f.Daemon.CLIVersion
	doc, _ = Diagnose(f)
	if r := *doc.Agents[0].TierReason; !strings.HasSuffix(r, "; a daemon is running and provides fallback capture (tier 3)") {
		t.Errorf("not installed, daemon up: %q", r)
	}

	asked := 0
	f.HookStatus = func(install.Adapter) *install.Status {
		asked++
		return &install.Status{Wired: true, Problems: []string{"PreToolUse missing"}}
	}
	f.Scan.Panes = append(f.Scan.Panes, agentPane("%2", "claude", nil))
	doc, _ = Diagnose(f)
	if doc.Agents[0].HookStatus != "incomplete" || doc.Warnings != 2 || doc.BelowTier != 2 {
		t.Fatalf("incomplete: %+v (warnings %d, below %d)", doc.Agents, doc.Warnings, doc.BelowTier)
	}
	if asked != 1 {
		t.Errorf("the adapter was asked %d times for one agent", asked)
	}
}

// TestAmbientDriver: the status-line driver's own mark decides polling; a
// stale one with a daemon reads as the daemon driving; neither warns, but
// no attached client with no daemon does.
func TestAmbientDriver(t *testing.T) {
	f := healthy(t)
	f.Scan.Cycle.LastStatusMS = now - AmbientStaleMS - 1
	f.Scan.Cycle.Clients = nil
	doc, text := Diagnose(f)
	if doc.AmbientDriver.Polling || !strings.Contains(text, "ambient: NOT polling — nothing invokes `tma status`; add `#(tma status)` to status-right (required ambient driver), or run the daemon (`tma daemon --ensure`)") {
		t.Errorf("stale driver:\n%s", text)
	}
	if !doc.Clients.Warning || doc.Warnings != 1 {
		t.Errorf("no client, no daemon: warning %v, %d warnings", doc.Clients.Warning, doc.Warnings)
	}
	f.Daemon.Up = true
	f.Daemon.Version = "0.0.9"
	doc, text = Diagnose(f)
	if !doc.AmbientDriver.Polling || !strings.Contains(text, "the daemon drives every cycle") || doc.Clients.Warning || doc.Warnings != 0 {
		t.Errorf("daemon up: polling %v, warnings %d:\n%s", doc.AmbientDriver.Polling, doc.Warnings, text)
	}
	if !doc.Daemon.VersionSkew || !strings.Contains(text, "version 0.0.9 differs from this CLI (0.1.0)") {
		t.Errorf("skew not reported:\n%s", text)
	}
}

// TestUnreachableServer: one warning naming the failure, no pane blocks.
func TestUnreachableServer(t *testing.T) {
	f := healthy(t)
	f.Scan, f.ScanErr = nil, "no tmux server running on /tmp/tmux-1/default"
	doc, text := Diagnose(f)
	if doc.Server.Reachable || doc.Warnings != 1 || !strings.Contains(text, "server:  no tmux server running on /tmp/tmux-1/default\n") || !strings.HasSuffix(text, "\npanes (0):\n") {
		t.Fatalf("warnings %d:\n%s", doc.Warnings, text)
	}
}

// TestInfoAndWarnings: a missing fzf is an info line; the status option
// off, installed click bindings with the mouse off, a missing tmux hook, a
// broken wrapper, a foreign or unstamped @agent_state, a failed notify
// command and a failed process walk are one warning each.
func TestInfoAndWarnings(t *testing.T) {
	f := healthy(t)
	f.FzfOK, f.FzfLine = false, "fzf:     not found"
	if doc, text := Diagnose(f); doc.Warnings != 0 || doc.Fzf.OK || !strings.Contains(text, "fzf:     not found\n") {
		t.Fatalf("fzf missing: %d warnings:\n%s", doc.Warnings, text)
	}

	cases := []struct {
		name string
		set  func(*Facts)
		want string
	}{
		{"status", func(f *Facts) { f.Options.StatusOff = true }, "status:  the global `status` option is off"},
		{"mouse", func(f *Facts) { f.Options.BindingsInstalled = true }, "mouse:   the status-line click bindings are installed but `mouse` is off"},
		{"hook", func(f *Facts) { f.TmuxHooks = []install.HookState{{Hook: "after-select-pane", State: "missing"}} }, "tmux hook after-select-pane missing"},
		{"wrapper", func(f *Facts) { f.Wrapper, f.WrapperErr = nil, &install.ErrNotOnPath{Path: "tma-hook"} }, "wrapper: tma-hook ✗ not on $PATH"},
		{"foreign", func(f *Facts) {
			f.Scan.Panes = []*record.Pane{agentPane("%4", "", map[string]string{"@agent_state": "thinking"})}
		}, "@agent_state = thinking is not a state token"},
		{"unstamped", func(f *Facts) {
			f.Scan.Panes = []*record.Pane{agentPane("%4", "", map[string]string{"@agent_state": "idle"})}
		}, "with no @agent_stamped_at: another tool wrote it"},
		{"notify", func(f *Facts) {
			f.Notify = &notify.Failure{Trigger: "blocked", Command: "false", Reason: "exit 1", AtMS: now}
		}, "notify:  exit 1: `false` (the last blocked fire"},
		{"notify record", func(f *Facts) { f.NotifyErr = errors.New("notify failure record: torn") }, "notify:  notify failure record: torn"},
		{"procs", func(f *Facts) { f.Scan.Panes = []*record.Pane{{Pane: "%5", Procs: -1}} }, "procs:   the process walk failed"},
	}
	for _, c := range cases {
		f := healthy(t)
		c.set(&f)
		doc, text := Diagnose(f)
		if doc.Warnings != 1 || !strings.Contains(text, c.want) {
			t.Errorf("%s: %d warnings, want 1 with %q:\n%s", c.name, doc.Warnings, c.want, text)
		}
	}
}

// TestPaneSections: ignored, nested and remote panes are listed in their
// sections and never as agent blocks; a remote pane that is registered is
// both; a hook-registered pane whose state came from the screen is demoted
// (a warning); an api problem is a warning on its pane.
func TestPaneSections(t *testing.T) {
	ign := &record.Pane{Pane: "%2", Class: record.ClassIgnored, Opts: map[string]string{"@agent_ignore": "1"}}
	nest := &record.Pane{Pane: "%3", Class: record.ClassNested, Command: "tmux"}
	remote := &record.Pane{Pane: "%4", Class: record.ClassRemote, Command: "ssh", Opts: map[string]string{}}
	reg := agentPane("%5", "claude", map[string]string{})
	reg.Class, reg.Command = record.ClassRemote, "ssh"
	demoted := agentPane("%6", "claude", stamped("blocked", "permission", "capture"))
	demoted.Opts["@agent_session"] = "sess-1"
	demoted.Opts["@tma_demoted"] = "1699999999000"
	f := healthy(t, ign, nest, remote, reg, demoted)
	f.APIProblem = func(p *record.Pane, _ record.Prior) string {
		if p.Pane == "%6" {
			return "a pending permission and no server endpoint"
		}
		return ""
	}
	doc, text := Diagnose(f)
	if len(doc.IgnoredPanes) != 1 || len(doc.Nested) != 1 || len(doc.RemotePanes) != 2 || len(doc.Agents) != 2 {
		t.Fatalf("sections: ignored %d nested %d remote %d agents %d:\n%s", len(doc.IgnoredPanes), len(doc.Nested), len(doc.RemotePanes), len(doc.Agents), text)
	}
	if doc.RemotePanes[1].Detail != "ssh; registered, hook events only" {
		t.Errorf("registered remote: %q", doc.RemotePanes[1].Detail)
	}
	d := doc.Agents[1]
	if !d.HookDemoted || d.API == nil || doc.Warnings != 2 {
		t.Errorf("demoted %v, api %v, warnings %d:\n%s", d.HookDemoted, d.API, doc.Warnings, text)
	}
	for _, want := range []string{"ignored: 1 pane(s) excluded", "nested:  1 pane(s) running a multiplexer client", "remote:  2 pane(s)",
		"       demoted: registered through a hook", "       api: a pending permission and no server endpoint\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestProcessNamesAndSkips: a process_names entry over 15 characters is
// reported with the 15 the kernel keeps (not a warning); an action naming
// an unknown agent and a failed action load are warnings.
func TestProcessNamesAndSkips(t *testing.T) {
	f := healthy(t)
	f.Manifests.Override("claude", true, []string{"a-very-long-agent-name"})
	f.ActionsErr = errors.New("actions: cannot read dir")
	doc, text := Diagnose(f)
	if len(doc.ProcessNameIssues) != 1 || doc.ProcessNameIssues[0].Name != "a-very-long-agent-name" ||
		!strings.Contains(text, `it matches a process whose kernel name (comm) is its first 15, "a-very-long-age"`) {
		t.Errorf("process name issues %+v:\n%s", doc.ProcessNameIssues, text)
	}
	if doc.Warnings != 1 || len(doc.Actions.Issues) != 1 || !strings.Contains(text, "actions: 0 loaded, 1 skipped:\n  - actions: cannot read dir\n") {
		t.Errorf("actions: %d warnings %+v:\n%s", doc.Warnings, doc.Actions, text)
	}
	// The agents line does not say "no issues" above what it lists
	// (issue 27 item 19).
	if !strings.Contains(text, "\nagents:  9 loaded, 1 note:\n  - claude: process_names entry") || strings.Contains(text, "no issues\n  - claude") {
		t.Errorf("the agents line with a note:\n%s", text)
	}
	f.Manifests.Override("codex", true, []string{"another-very-long-name"})
	if _, text := Diagnose(f); !strings.Contains(text, "\nagents:  9 loaded, 2 notes:\n") {
		t.Errorf("the agents line with two notes:\n%s", text)
	}
}

// TestCodexChainedNote: a codex pane whose notify is chained through
// another program reads the manual's "wired (agent codex: notify chained
// through <program>)" (issue 27 item 19: the "agent codex: " was dropped);
// the JSON's hook_note stays the note itself.
func TestCodexChainedNote(t *testing.T) {
	f := healthy(t, agentPane("%1", "codex", stamped("idle", "", "hook")))
	f.HookStatus = func(install.Adapter) *install.Status {
		return &install.Status{Wired: true, Notes: []string{"notify chained through cu-notify"}}
	}
	doc, text := Diagnose(f)
	if !strings.Contains(text, "       hooks: wired (agent codex: notify chained through cu-notify)\n") {
		t.Errorf("the chained hooks line:\n%s", text)
	}
	if len(doc.Agents) != 1 || doc.Agents[0].HookNote == nil || *doc.Agents[0].HookNote != "notify chained through cu-notify" {
		t.Errorf("hook_note: %+v", doc.Agents)
	}
}

// TestControlLine: doctor says, as information (no warning), which way
// followers hear of changes on this server's tmux and why: tma's own
// control client on the releases whose identify window it closes, tmux -C
// on newer ones, polling when control_clients is off or the version
// cannot be read.
func TestControlLine(t *testing.T) {
	for _, c := range []struct {
		version string
		off     bool
		mode    string
		text    string
	}{
		{"3.6", false, "own", "control: push, through tma's own control client — tmux 3.6 crashes when a control client still identifying meets a notification (fixed in 3.7)"},
		{"3.3a", false, "own", "control: push, through tma's own control client — tmux 3.3a crashes"},
		{"3.7c", false, "own", "control: push, through tma's own control client — tmux 3.7c"},
		{"next-3.8", false, "tmux", "control: push, through tmux -C — tmux next-3.8 is newer than any tma knows"},
		{"3.6", true, "poll", "control: polling, no control client (a change is seen within about half a second) — `[tmux] control_clients = false` in config.toml"},
		{"openbsd-7.6", false, "poll", "control: polling, no control client"},
	} {
		f := healthy(t)
		f.Scan.Cycle.TmuxVersion = c.version
		f.Config.Tmux.ControlClients = !c.off
		doc, text := Diagnose(f)
		if doc.Warnings != 0 || !strings.Contains(text, c.text) || doc.Server.Control != c.mode || doc.Server.ControlWhy == "" {
			t.Errorf("%s (off %v): %d warnings, control %q (%q):\n%s", c.version, c.off, doc.Warnings, doc.Server.Control, doc.Server.ControlWhy, text)
		}
	}
}

func TestOlderThan(t *testing.T) {
	for v, want := range map[string]bool{"3.3a": true, "3.5": true, "3.6": false, "next-3.8": false, "master": false, "4.0": false, "2.9": true} {
		if got := olderThan(v, 3, 6); got != want {
			t.Errorf("olderThan(%q) = %v", v, got)
		}
	}
}

func TestMouseBindings(t *testing.T) {
	if !mouseBindings("bind-key -T root MouseDown1Status run-shell \"tma jump --blocked\"\non\n") {
		t.Error("the click binding was not recognised")
	}
	if mouseBindings("bind-key -T root MouseDown1Status select-window -t =\n") {
		t.Error("tmux's own click binding read as tma's")
	}
}

// TestBrokenConfig: a config that does not load is a line (and a warning)
// of a report that goes on with the defaults (issue 27 item 19: doctor
// printed the error alone); the JSON's config names the file and why.
func TestBrokenConfig(t *testing.T) {
	f := healthy(t, agentPane("%1", "claude", stamped("idle", "", "hook")))
	f.ConfigPath, f.ConfigErr = "/home/u/.config/tma/config.toml", errors.New("config /home/u/.config/tma/config.toml:2: fold.dwell_secs: expected integer, found string")
	doc, text := Diagnose(f)
	if !strings.HasPrefix(text, "config:  config /home/u/.config/tma/config.toml:2: fold.dwell_secs: expected integer, found string — the report below uses the defaults in its place\n") ||
		!strings.Contains(text, "\nagents:  ") || !strings.Contains(text, "panes (1):") {
		t.Errorf("the report with a broken config:\n%s", text)
	}
	if doc.Warnings != 1 || doc.Config.OK || doc.Config.Error == nil || doc.Config.Path == nil || *doc.Config.Path != f.ConfigPath {
		t.Errorf("%d warnings, config %+v", doc.Warnings, doc.Config)
	}
	f.ConfigErr = nil
	if doc, text := Diagnose(f); strings.Contains(text, "config:") || !doc.Config.OK || doc.Config.Error != nil || doc.Warnings != 0 {
		t.Errorf("a good config: %+v\n%s", doc.Config, text)
	}
}

// TestModeFromScreen: a pane whose screen names a mode in the footer its manifest's [[modes]]
// read (Claude 2.1.332's auto mode) has it on its doctor lines and in the JSON; a pane with
// no screen read, or a screen naming none, has no mode.
func TestModeFromScreen(t *testing.T) {
	p := agentPane("%1", "claude", stamped("idle", "", "capture"))
	p.Height = 5
	p.Capture = &record.Capture{Text: "────────────────\n❯ \n────────────────\n  ⏵⏵ auto mode on (shift+tab to cycle)\n"}
	q := agentPane("%2", "claude", stamped("idle", "", "capture"))
	r := agentPane("%3", "claude", stamped("idle", "", "capture"))
	r.Height = 5
	r.Capture = &record.Capture{Text: "────────────────\n❯ \n────────────────\n  ? for shortcuts\n"}
	doc, text := Diagnose(healthy(t, p, q, r))
	if !strings.Contains(text, "       mode: auto (the screen: ⏵⏵ auto mode on (shift+tab to cycle))\n") {
		t.Errorf("text lacks the mode line:\n%s", text)
	}
	if strings.Count(text, "mode: ") != 1 {
		t.Errorf("a mode named where the screen names none:\n%s", text)
	}
	if m := doc.Agents[0].Mode; m == nil || *m != "auto" {
		t.Errorf("JSON mode %v", m)
	}
	if doc.Agents[1].Mode != nil || doc.Agents[2].Mode != nil {
		t.Errorf("modes %v %v, want none", doc.Agents[1].Mode, doc.Agents[2].Mode)
	}
}
