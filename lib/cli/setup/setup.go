package setupcmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/tmux"
)

type hooksCmd struct {
	Agent        string `arg:"" optional:"" help:"the agent whose config to wire: claude, codex, gemini, opencode, cursor or pi (optional with --check and --all)."`
	Check        bool   `name:"check" help:"verify the wiring: exit 0 when complete, 1 with what is missing or drifted."`
	Uninstall    bool   `name:"uninstall" help:"remove exactly what install added (the last one also removes the tmux hooks and clears @agent_* from every pane)."`
	All          bool   `name:"all" help:"every agent that already carries tma wiring (repointed to the current wrapper posture)."`
	Yes          bool   `name:"yes" short:"y" help:"apply without asking."`
	Statusline   bool   `name:"statusline" help:"wire the statusline context shim (claude, cursor); with --check, require it."`
	NoStatusline bool   `name:"no-statusline" help:"remove the statusline shim, restoring the command it wrapped; with --check, require its absence."`
	WrapperRef   string `name:"wrapper-ref" enum:"bare,absolute," default:"" placeholder:"bare|absolute" help:"how configs name the wrapper, for this run (default: [install] wrapper_ref)."`
	WrapperPath  string `name:"wrapper-path" placeholder:"PATH" help:"the tma-hook wrapper (env TMA_WRAPPER_PATH)."`

	ClaudeSettings  string `name:"claude-settings" placeholder:"PATH" help:"claude settings.json (env TMA_CLAUDE_SETTINGS; default $CLAUDE_CONFIG_DIR/settings.json, ~/.claude/settings.json)."`
	CodexConfig     string `name:"codex-config" placeholder:"PATH" help:"codex config.toml (env TMA_CODEX_CONFIG; default $CODEX_HOME/config.toml)."`
	CodexHooks      string `name:"codex-hooks" placeholder:"PATH" help:"codex hooks.json (env TMA_CODEX_HOOKS; default $CODEX_HOME/hooks.json)."`
	GeminiSettings  string `name:"gemini-settings" placeholder:"PATH" help:"gemini settings.json (env TMA_GEMINI_SETTINGS; default ~/.gemini/settings.json)."`
	OpencodePlugin  string `name:"opencode-plugin" placeholder:"PATH" help:"the OpenCode plugin file (env TMA_OPENCODE_PLUGIN; default ~/.config/opencode/plugin/tma.js)."`
	CursorHooks     string `name:"cursor-hooks" placeholder:"PATH" help:"cursor hooks.json (env TMA_CURSOR_HOOKS; default ~/.cursor/hooks.json)."`
	CursorCLIConfig string `name:"cursor-cli-config" placeholder:"PATH" help:"cursor cli-config.json, for the statusline shim (env TMA_CURSOR_CLI_CONFIG)."`
	PiExtension     string `name:"pi-extension" placeholder:"PATH" help:"the pi extension file (env TMA_PI_EXTENSION; default $PI_CODING_AGENT_DIR/extensions/tma.js, ~/.pi/agent/extensions/tma.js)."`
	QwenSettings    string `name:"qwen-settings" placeholder:"PATH" help:"qwen settings.json (env TMA_QWEN_SETTINGS; default ~/.qwen/settings.json)."`
	CopilotSettings string `name:"copilot-settings" placeholder:"PATH" help:"copilot settings.json (env TMA_COPILOT_SETTINGS; default $COPILOT_HOME/settings.json, ~/.copilot/settings.json)."`
}

func (h *hooksCmd) flags() map[string]string {
	return map[string]string{
		string(install.ClaudeSettings):  h.ClaudeSettings,
		string(install.CodexConfig):     h.CodexConfig,
		string(install.CodexHooks):      h.CodexHooks,
		string(install.GeminiSettings):  h.GeminiSettings,
		string(install.OpencodePlugin):  h.OpencodePlugin,
		string(install.CursorHooks):     h.CursorHooks,
		string(install.CursorCLIConfig): h.CursorCLIConfig,
		string(install.PiExtension):     h.PiExtension,
		string(install.QwenSettings):    h.QwenSettings,
		string(install.CopilotSettings): h.CopilotSettings,
	}
}

type cli struct {
	common.Globals
	InstallHooks hooksCmd     `cmd:"" name:"install-hooks" help:"install, uninstall or verify the agent and tmux hook wiring."`
	InstallKeys  keysCmd      `cmd:"" name:"install-keys" help:"install, uninstall or verify tma's tmux keybindings."`
	Init         initCmd      `cmd:"" name:"init" help:"first-run setup: detect the agents on $PATH, wire their hooks, report the status line, install the keybindings, then tma doctor."`
	Doctor       doctorCmd    `cmd:"" name:"doctor" help:"diagnose each agent pane's tier and why (read-only)."`
	Reload       reloadCmd    `cmd:"" name:"reload" help:"signal this server's daemon to re-read its config and manifests (SIGHUP); a no-op when none is running."`
	Device       deviceCmd    `cmd:"" name:"device" help:"pair, grant, revoke and list the remote devices tma serve answers (devices.toml)."`
	Uninstall    uninstallCmd `cmd:"" name:"uninstall" help:"remove tma: every agent's hooks, the keybindings and their source-file line (each shown as a diff and confirmed), then the daemons and the installed files."`

	InstallDispatcher installDispatcherCmd `cmd:"" name:"install-dispatcher" help:"write the tma dispatcher beside the tools (what go install does not place), atomically."`
	InstallFiles      installFilesCmd      `cmd:"" name:"install-files" help:"install built files into a bin directory, each written beside its name and then all renamed over (what make install runs); replaces a daemon of the build it replaced."`

	// The scripts cover every tool's commands (completions.go).
	Completions completionsCmd `cmd:"" name:"completions" help:"write the completion script for one shell to stdout (bash, zsh, fish); with none, where each shell reads it from."`
}

// Run is tma-setup's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "Install tma's agent hooks, keybindings and first-run setup.", args)
	if !ok {
		return code
	}
	switch cmd := kctx.Command(); {
	case strings.HasPrefix(cmd, "install-hooks"):
		r := &run{e: e, g: &c.Globals, h: &c.InstallHooks, now: time.Now()}
		return r.main()
	case cmd == "install-keys":
		r := &run{e: e, g: &c.Globals, h: &hooksCmd{Yes: c.InstallKeys.Yes}, now: time.Now()}
		return r.keys(&c.InstallKeys)
	case cmd == "doctor":
		r := &run{e: e, g: &c.Globals, h: &hooksCmd{}, now: time.Now()}
		return r.doctor(&c.Doctor)
	case cmd == "init":
		r := &run{e: e, g: &c.Globals, h: &hooksCmd{Yes: c.Init.Yes}, now: time.Now()}
		return r.initRun(&c.Init)
	case strings.HasPrefix(cmd, "completions"):
		return completions(e, &c.Completions)
	case strings.HasPrefix(cmd, "device "):
		return devices(e, &c.Globals, &c.Device, strings.Fields(cmd)[1], time.Now())
	case cmd == "uninstall":
		r := &run{e: e, g: &c.Globals, h: &hooksCmd{Yes: c.Uninstall.Yes}, now: time.Now()}
		return r.uninstallRun(&c.Uninstall)
	case cmd == "install-dispatcher":
		return installDispatcher(e, &c.InstallDispatcher)
	case strings.HasPrefix(cmd, "install-files"):
		return installFiles(e, &c.InstallFiles)
	case cmd == "reload":
		r := &run{e: e, g: &c.Globals, h: &hooksCmd{}, now: time.Now()}
		return r.reload()
	}
	e.Errorf("%s is not built yet", strings.Fields(kctx.Command())[0])
	return common.ExitFail
}

// run is one install-hooks invocation.
type run struct {
	e   *common.Env
	g   *common.Globals
	h   *hooksCmd
	now time.Time

	env         install.Env
	loaded      *common.Loaded
	wrapper     *install.Wrapper
	wrapErr     error
	tmaPath     string
	record      *install.Record
	slRecord    *install.StatuslineRecord
	declined    bool
	failed      bool
	inInit      bool // a step of tma init (which reports the status line itself)
	keysNoted   bool // keysSpec said once why the bindings call tma by name
	keysWritten bool // install-keys wrote the managed file or the source line
	wired       bool // this run wrote some agent's hooks (offerRestart says so)
	reloaded    bool // init sourced the tmux config on the server
}

func (r *run) out(format string, a ...any) { fmt.Fprintf(r.e.Stdout, format+"\n", a...) }
func (r *run) note(format string, a ...any) {
	fmt.Fprintf(r.e.Stderr, "tma: note: "+format+"\n", a...)
}
func (r *run) warn(format string, a ...any) {
	fmt.Fprintf(r.e.Stderr, "tma: warning: "+format+"\n", a...)
}

func (r *run) usage(format string, a ...any) int {
	r.e.Errorf(format, a...)
	return common.ExitUsage
}

func (r *run) main() int {
	h := r.h
	switch {
	case h.Check && h.Uninstall:
		return r.usage("--check and --uninstall are exclusive")
	case h.Statusline && h.NoStatusline:
		return r.usage("--statusline and --no-statusline are exclusive")
	case h.Agent != "" && h.All:
		return r.usage("name an agent or pass --all, not both")
	case h.Agent == "" && !h.Check && !h.All:
		return r.usage("name an agent (%s), or pass --all; only --check may go without one", strings.Join(install.Names(), ", "))
	}
	if h.Agent != "" && install.Lookup(h.Agent) == nil {
		return r.usage("unknown agent %q (install-hooks wires %s)", h.Agent, strings.Join(install.Names(), ", "))
	}
	if (h.Statusline || h.NoStatusline) && h.Agent != "" && h.Agent != "claude" && h.Agent != "cursor" {
		return r.usage("the statusline shim is for claude and cursor only")
	}
	if !r.prepare() {
		return common.ExitFail
	}
	switch {
	case h.Check:
		return r.check()
	case h.Uninstall:
		return r.uninstall()
	}
	return r.install()
}

// prepare loads what every install-hooks run reads: config and manifests,
// the paths, the wrapper, the records. It reports false after printing the
// error that stopped it.
func (r *run) prepare() bool {
	h := r.h
	l, err := r.g.Load(r.e)
	if err != nil {
		r.e.Errorf("%v", err)
		return false
	}
	r.loaded = l
	self, _ := os.Executable()
	r.env = install.Env{Getenv: r.e.Getenv, Self: self, Flags: h.flags()}
	r.tmaPath = r.findTma(self)
	mode := h.WrapperRef
	if mode == "" {
		mode = l.Config.Install.WrapperRef
	}
	r.wrapper, r.wrapErr = r.env.ResolveWrapper(mode, h.WrapperPath)
	if r.record, err = install.LoadRecord(r.env.RecordPath()); err != nil {
		r.e.Errorf("%v", err)
		return false
	}
	if r.slRecord, err = install.LoadStatusline(r.env.StatuslinePath()); err != nil {
		r.e.Errorf("%v", err)
		return false
	}
	return true
}

// findTma is the tma the tmux hooks and the statusline shim name: the one
// beside this binary (the dispatcher runs tma-setup from its own directory),
// else tma on $PATH, else the path beside this binary all the same (the
// hook falls back to tma on $PATH at fire time).
func (r *run) findTma(self string) string {
	beside := "tma"
	if self != "" {
		beside = filepath.Join(filepath.Dir(self), "tma")
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
			return beside
		}
	}
	if p := r.env.LookPath("tma"); p != "" {
		return p
	}
	return beside
}

func (r *run) ctx(a install.Adapter) *install.Ctx {
	var events []string
	if m := r.loaded.Manifests.Get(a.Name()); m != nil && m.Hooks != nil {
		for _, hm := range m.Hooks.Map {
			events = append(events, hm.Event)
		}
	}
	want := install.StatuslineKeep
	switch {
	case r.h.Statusline:
		want = install.StatuslineOn
	case r.h.NoStatusline:
		want = install.StatuslineOff
	}
	created := map[string]bool{}
	written := ""
	var kept []install.Kept
	if ar := r.record.Agents[a.Name()]; ar != nil {
		for _, f := range ar.Created {
			created[f] = true
		}
		written, kept = ar.Wrapper, ar.Kept
	}
	return &install.Ctx{
		Env:        r.env,
		Agent:      a.Name(),
		Events:     install.EventsFor(a, events),
		Wrapper:    r.wrapper,
		Respell:    r.h.All || r.h.WrapperRef != "",
		TmaPath:    r.tmaPath,
		Statusline: want,
		Recorded:   r.slRecord.Has(a.Name()),
		Created:    created,
		Written:    written,
		Kept:       kept,
	}
}

// wiredAgents are the adapters whose configs carry tma wiring.
func (r *run) wiredAgents() []install.Adapter {
	var out []install.Adapter
	for _, a := range install.Adapters() {
		st, err := a.Check(r.ctx(a))
		if err == nil && st.Wired {
			out = append(out, a)
		}
	}
	return out
}

func (r *run) targets() []install.Adapter {
	if r.h.Agent != "" {
		return []install.Adapter{install.Lookup(r.h.Agent)}
	}
	return r.wiredAgents()
}

func (r *run) client() *tmux.Client { return r.g.Tmux(r.e, r.loaded.Config) }

func (r *run) socket(c *tmux.Client) string { return common.SocketDescription(r.e, c.Target) }

// apply shows each change and applies the accepted ones; it returns the
// files it created and whether every change was applied.
func (r *run) apply(agent string, changes []install.Change) (created []string, all bool) {
	all = true
	for _, ch := range changes {
		r.out("tma: proposed change to %s (%s):", r.env.Pretty(ch.Path), ch.What)
		newText := ch.New
		if ch.Remove {
			newText = nil
			r.out("  (remove the file)")
		}
		fmt.Fprint(r.e.Stdout, install.Diff(ch.Old, newText))
		for _, n := range ch.Notes {
			r.out("  note: %s", n)
		}
		if !r.confirm(ch.Path) {
			all = false
			continue
		}
		if err := install.Apply(ch); err != nil {
			r.e.Errorf("%s: %v", r.env.Pretty(ch.Path), err)
			r.failed = true
			all = false
			continue
		}
		if !ch.Existed && !ch.Remove {
			created = append(created, ch.Path)
		}
	}
	return created, all
}

// confirm asks on a terminal; --yes accepts; no terminal declines.
func (r *run) confirm(path string) bool {
	if r.h.Yes {
		return true
	}
	if !r.terminal() {
		r.e.Errorf("no terminal to confirm on and no --yes: %s left unchanged", r.env.Pretty(path))
		r.declined = true
		return false
	}
	fmt.Fprint(r.e.Stdout, "Apply this change? [y/N] ")
	line, _ := bufio.NewReader(r.e.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	r.out("tma: declined: %s left unchanged", r.env.Pretty(path))
	r.declined = true
	return false
}

func (r *run) exit() int {
	if r.failed || r.declined {
		return common.ExitFail
	}
	return common.ExitOK
}

func (r *run) install() int {
	targets := r.targets()
	if len(targets) == 0 {
		if r.wrapErr != nil {
			r.e.Errorf("%v", r.wrapErr)
			return common.ExitFail
		}
		r.note("no agent carries tma wiring yet: name one (tma install-hooks <agent>)")
		return common.ExitOK
	}
	r.installAgents(targets)
	// The hooks now point at this build; a daemon of another one would
	// answer them.
	if !r.failed && !r.declined {
		if s := r.serverSocket(); s != "" {
			r.offerRestart(s)
		}
	}
	return r.exit()
}

// installAgents wires each target (each file's diff shown and confirmed),
// records the agents whose every change was applied, brings the server's
// tmux hooks up to date when any was, and saves the records. A wrapper that
// cannot be resolved fails the run before anything is written. tma init
// calls it with the agents it found on $PATH.
func (r *run) installAgents(targets []install.Adapter) {
	if r.wrapErr != nil {
		r.e.Errorf("%v", r.wrapErr)
		r.failed = true
		return
	}
	for _, w := range r.wrapper.Warnings {
		r.warn("%s", w)
	}
	// A named wrapper that does not exist yet is written first, shown and
	// confirmed like every other file: the hooks below will name it.
	if w := r.wrapper.Write; w != nil {
		if _, all := r.apply("wrapper", []install.Change{*w}); !all {
			r.declined = true
			return
		}
		r.wrapper.Write = nil
	}
	anyDone := false
	for _, a := range targets {
		c := r.ctx(a)
		plan, err := a.Install(c)
		if err != nil {
			r.e.Errorf("%s: %v", a.Name(), err)
			r.failed = true
			continue
		}
		for _, w := range plan.Warnings {
			r.warn("%s", w)
		}
		created, all := r.apply(a.Name(), plan.Changes)
		if !all {
			continue
		}
		anyDone = true
		r.wired = r.wired || len(plan.Changes) > 0
		for _, n := range plan.Notes {
			r.out("tma: %s", n)
		}
		if len(plan.Changes) == 0 {
			r.out("tma: hooks for %s already installed", a.Name())
		} else {
			r.out("tma: installed hooks for %s", a.Name())
		}
		r.recordAgent(a, c, created, plan.Kept, len(plan.Changes) > 0)
	}
	if anyDone {
		r.installTmux()
	}
	r.saveRecords()
}

// recordAgent notes an agent's completed install. An install that changed
// nothing keeps the recorded time, so a re-run leaves the record's bytes
// as they were.
func (r *run) recordAgent(a install.Adapter, c *install.Ctx, created []string, kept []install.Kept, changed bool) {
	ar := r.record.Agents[a.Name()]
	if ar == nil {
		ar = &install.AgentRecord{}
		r.record.Agents[a.Name()] = ar
	}
	if changed || ar.InstalledAt.IsZero() || ar.Wrapper != r.wrapper.Ref {
		ar.InstalledAt = r.now.UTC().Truncate(time.Second)
	}
	ar.Wrapper = r.wrapper.Ref
	ar.Files = a.Paths(r.env)
	for _, f := range created {
		if !contains(ar.Created, f) {
			ar.Created = append(ar.Created, f)
		}
	}
	ar.Keep(kept)
	switch c.Statusline {
	case install.StatuslineOn:
		r.slRecord.Set(a.Name(), true)
	case install.StatuslineOff:
		r.slRecord.Set(a.Name(), false)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func (r *run) tmuxHooks(c *tmux.Client) *install.TmuxHooks {
	return &install.TmuxHooks{Client: c, TmaPath: r.tmaPath, Focus: r.loaded.Config.Focus.Events}
}

// installTmux brings the server's attention-clear hooks up to date.
func (r *run) installTmux() {
	c := r.client()
	th := r.tmuxHooks(c)
	ctx := common.Background()
	entries, err := th.List(ctx)
	if errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNotInstalled) {
		r.note("no tmux server on %s: the attention-clear tmux hooks are not installed (run install-hooks again with the server up)", r.socket(c))
		return
	}
	if err != nil {
		r.e.Errorf("tmux hooks: %s", common.DescribeTmuxError(r.e, c, err))
		r.failed = true
		return
	}
	lines, err := th.InstallLines(entries)
	if err != nil {
		r.e.Errorf("tmux hooks: %v", err)
		r.failed = true
		return
	}
	if err := th.Apply(ctx, lines); err != nil {
		r.e.Errorf("tmux hooks: %v", err)
		r.failed = true
		return
	}
	if len(lines) > 0 {
		r.out("tma: installed tmux hooks %s on %s", strings.Join(th.Wanted(), ", "), r.socket(c))
	}
	r.record.SetTmux(r.socket(c), r.tmaPath, th.Wanted(), r.now)
}

func (r *run) saveRecords() {
	// An empty record is not created: a declined install writes nothing.
	_, err := os.Stat(r.env.RecordPath())
	if err == nil || len(r.record.Agents) > 0 || len(r.record.Tmux) > 0 {
		if err := r.record.Save(r.env.RecordPath()); err != nil {
			r.e.Errorf("install record: %v", err)
			r.failed = true
		}
	}
	if _, err := os.Stat(r.env.StatuslinePath()); err == nil || len(r.slRecord.Agents) > 0 {
		if err := r.slRecord.Save(r.env.StatuslinePath()); err != nil {
			r.e.Errorf("statusline record: %v", err)
			r.failed = true
		}
	}
}

func (r *run) uninstall() int {
	targets := r.targets()
	if len(targets) == 0 {
		r.note("no agent carries tma wiring: nothing to remove")
	}
	for _, a := range targets {
		plan, err := a.Uninstall(r.ctx(a))
		if err != nil {
			r.e.Errorf("%s: %v", a.Name(), err)
			r.failed = true
			continue
		}
		for _, w := range plan.Warnings {
			r.warn("%s", w)
		}
		if _, all := r.apply(a.Name(), plan.Changes); !all {
			continue
		}
		if len(plan.Changes) == 0 {
			r.out("tma: no hooks for %s to remove", a.Name())
		} else {
			r.out("tma: uninstalled hooks for %s", a.Name())
		}
		delete(r.record.Agents, a.Name())
		r.slRecord.Set(a.Name(), false)
	}
	if len(r.wiredAgents()) == 0 && !r.declined && !r.failed {
		r.lastUninstall()
		r.removeWrittenWrapper()
	}
	r.saveRecords()
	return r.exit()
}

// lastUninstall removes the tmux hooks and every @agent_* pane option:
// nothing refreshes them once the wiring is gone.
func (r *run) lastUninstall() {
	c := r.client()
	ctx := common.Background()
	th := r.tmuxHooks(c)
	entries, err := th.List(ctx)
	if errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNotInstalled) {
		r.note("no tmux server on %s: no tmux hooks or pane options to clear", r.socket(c))
		r.record.SetTmux(r.socket(c), "", nil, r.now)
		return
	}
	if err != nil {
		r.e.Errorf("tmux hooks: %s", common.DescribeTmuxError(r.e, c, err))
		r.failed = true
		return
	}
	if lines := install.UninstallLines(entries); len(lines) > 0 {
		if err := th.Apply(ctx, lines); err != nil {
			r.e.Errorf("tmux hooks: %v", err)
			r.failed = true
			return
		}
		r.out("tma: removed the tmux hooks from %s", r.socket(c))
	}
	r.record.SetTmux(r.socket(c), "", nil, r.now)
	if _, err := install.ClearAgentOptions(ctx, c); err != nil {
		r.e.Errorf("clearing @agent_* options: %s", common.DescribeTmuxError(r.e, c, err))
		r.failed = true
		return
	}
	r.out("tma: cleared tma's @agent_* options from every pane on %s", r.socket(c))
	for _, opt := range []string{"status-right", "status-left", "status-format[0]"} {
		v, _, err := c.Run(ctx, "", "show-options", "-gqv", opt)
		if err == nil && strings.Contains(v, "tma status") {
			r.out("tma: reminder: your %s still runs `tma status`; tma never wrote that line, so remove it from your tmux config yourself", opt)
			break
		}
	}
}

func (r *run) check() int {
	var problems, notes []string
	if r.wrapErr != nil {
		msg := r.wrapErr.Error()
		var np *install.ErrNotOnPath
		if errors.As(r.wrapErr, &np) {
			msg = "tma-hook not on $PATH"
		}
		problems = append(problems, "wrapper: "+strings.SplitN(msg, "\n", 2)[0])
	}
	var targets []install.Adapter
	if r.h.Agent != "" {
		targets = []install.Adapter{install.Lookup(r.h.Agent)}
	} else {
		for _, a := range install.Adapters() {
			st, err := a.Check(r.ctx(a))
			if (err == nil && st.Wired) || r.record.Agents[a.Name()] != nil || r.slRecord.Has(a.Name()) {
				targets = append(targets, a)
			}
		}
		if len(targets) == 0 {
			problems = append(problems, "no agent is wired")
		}
	}
	for _, a := range targets {
		st, err := a.Check(r.ctx(a))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", a.Name(), err))
			continue
		}
		for _, p := range st.Problems {
			problems = append(problems, a.Name()+": "+p)
		}
		for _, n := range st.Notes {
			notes = append(notes, a.Name()+": "+n)
		}
	}
	c := r.client()
	th := r.tmuxHooks(c)
	entries, err := th.List(common.Background())
	switch {
	case errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNotInstalled):
		r.note("no tmux server on %s: the tmux hooks were not checked", r.socket(c))
	case err != nil:
		problems = append(problems, "tmux hooks: "+common.DescribeTmuxError(r.e, c, err))
	default:
		var recorded []string
		if tr := r.record.TmuxFor(r.socket(c)); tr != nil {
			recorded = tr.Hooks
		}
		for _, hs := range th.Check(entries, recorded) {
			if p := hs.Problem(); p != "" {
				problems = append(problems, p)
			}
		}
	}
	for _, n := range notes {
		r.out("tma: %s", n)
	}
	if len(problems) == 0 {
		r.out("tma: hooks OK")
		return common.ExitOK
	}
	r.out("tma: hook wiring incomplete:")
	for _, p := range problems {
		r.out("  - %s", p)
	}
	r.out("run `tma install-hooks <agent>` to reinstall")
	return common.ExitFail
}
