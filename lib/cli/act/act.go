package actcmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/broker"
	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

type actCmd struct {
	selector.Flags
	Name            string   `arg:"" optional:"" help:"the action to fire; omit it with --list or --menu."`
	Pane            string   `name:"pane" placeholder:"ID" help:"the target pane (default: $TMUX_PANE)."`
	All             bool     `name:"all" help:"fire on every agent pane the selector flags match, each with its own lock and gate (never an action that answers a prompt: no batch approve)."`
	List            bool     `name:"list" help:"list the loaded actions; with --pane, whether each can fire there and why not."`
	Menu            bool     `name:"menu" help:"open a tmux menu of the actions fireable on the pane right now."`
	JSON            bool     `name:"json" help:"print the result object (--all: the results envelope; --list: the list document)."`
	DryRun          bool     `name:"dry-run" help:"resolve everything and fire nothing: the gate verdict, the effect, the context."`
	Force           bool     `name:"force" help:"skip the when gate (only the when gate: identity, requires, the lock and confirm still hold)."`
	Yes             bool     `name:"yes" short:"y" help:"answer a confirm action's question (for the whole batch with --all)."`
	Text            *string  `name:"text" placeholder:"LINE" help:"the line a text action types (steer, steer_now), delivered literally."`
	Arg             []string `name:"arg" sep:"none" placeholder:"VALUE" help:"a value for an exec action, as TMA_ARG (repeatable: TMA_ARG_1..N, TMA_ARG_COUNT)."`
	ExpectEpisodeMS *int64   `name:"expect-episode-ms" placeholder:"MS" help:"refuse (episode-changed) unless the pane's episode_ms, read under the lock, equals this."`
	ExpectRequest   *string  `name:"expect-permission-request" placeholder:"ID" help:"refuse (request-gone) unless the pane's permission_request, read under the lock, is this id."`
	ConfigDir       string   `name:"config-dir" placeholder:"DIR" help:"where actions/ lives (env TMA_CONFIG_DIR; default $XDG_CONFIG_HOME/tma, ~/.config/tma)."`
	Slot            *string  `name:"slot" placeholder:"ID" help:"dispatch at most once per ID: a repeat prints the first fire's receipt, exits with its code and sends nothing (tma receipts reads the ledger)."`
	Device          *string  `name:"device" placeholder:"NAME" help:"who dispatches, recorded on the slot's receipt and in the act log."`
	Source          string   `name:"source" default:"cli" hidden:"" help:"the surface asking, for the audit log (cli, menu, picker, watch)."`
}

type cli struct {
	common.Globals
	Act      actCmd      `cmd:"" default:"withargs" help:"fire a guarded action into an agent pane, or list / menu the fireable ones."`
	Mute     muteCmd     `cmd:"" help:"stop a pane from notifying for a while, without changing what tma detects about it."`
	Receipts receiptsCmd `cmd:"" help:"read the dispatch ledger tma act --slot writes (no tmux, no lock, no keystroke)."`
	// Supervise is what a detach = true fire leaves running.
	Supervise superviseCmd `cmd:"" hidden:"" help:"internal: supervise a detached action's child (the broker starts it)."`
}

// Run is tma-act's main: act, mute and receipts.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "Fire guarded actions into agent panes; mute panes; read the dispatch ledger.", args)
	if !ok {
		return code
	}
	now := func() int64 { return time.Now().UnixMilli() }
	switch cmd := kctx.Command(); {
	case strings.HasPrefix(cmd, "mute"):
		return (&muter{e: e, g: &c.Globals, c: &c.Mute, now: now}).main()
	case strings.HasPrefix(cmd, "receipts"):
		return receipts(e, &c.Receipts)
	case strings.HasPrefix(cmd, "supervise"):
		g := &c.Globals
		return broker.Supervise(e.Stdin, broker.Supervision(c.Supervise), e.Lookup, g.Config,
			func(cfg *config.Config) *tmux.Client { return g.Tmux(e, cfg) })
	}
	b := &invocation{e: e, g: &c.Globals, c: &c.Act, now: now}
	return b.main()
}

// invocation is one tma act: the flags checked, then the broker built.
type invocation struct {
	e      *common.Env
	g      *common.Globals
	c      *actCmd
	now    func() int64
	sel    *selector.Selector
	slotID string // --slot
	device string // --device
}

func (b *invocation) usage(format string, a ...any) int {
	b.e.Errorf(format, a...)
	return common.ExitUsage
}

func (b *invocation) fail(err error) int {
	b.e.Errorf("%v", err)
	return common.ExitFail
}

// main checks the invocation (usage errors win, before config or tmux),
// loads, and runs the mode.
func (b *invocation) main() int {
	c := b.c
	switch {
	case c.List && c.Menu:
		return b.usage("--list and --menu exclude each other")
	case (c.List || c.Menu) && c.Name != "":
		return b.usage("NAME is omitted with --list and --menu (got %q)", c.Name)
	case !c.List && !c.Menu && c.Name == "":
		return b.usage("name an action to fire, or pass --list or --menu\nhint: tma act --list shows the loaded actions")
	case c.All && c.Pane != "":
		return b.usage("--all and --pane exclude each other: --all fires on what the selector flags match")
	case c.All && (c.List || c.Menu):
		return b.usage("--all fires an action; it does not combine with --list or --menu")
	case c.All && c.Flags.Empty() != "":
		return b.usage("--all with an empty %s value: name what to fire on (an empty selector never means every pane)", c.Flags.Empty())
	case c.All && c.ExpectEpisodeMS != nil:
		return b.usage("--expect-episode-ms binds one pane's episode: it does not combine with --all")
	case c.All && c.ExpectRequest != nil:
		return b.usage("--expect-permission-request binds one pane's request: it does not combine with --all")
	case c.ExpectRequest != nil && (*c.ExpectRequest == "" || act.HasControl(*c.ExpectRequest)):
		return b.usage("--expect-permission-request needs the id from the ls row's permission_request")
	case c.Pane != "" && !tmux.ValidPaneID(c.Pane):
		return b.usage("invalid pane id %q (expected %%N)", c.Pane)
	case !manifest.ValidToken(c.Source):
		return b.usage("invalid --source %q (a token such as cli, menu, picker, watch)", c.Source)
	case c.Slot != nil && (c.List || c.Menu):
		return b.usage("--slot names one dispatch: it does not combine with --list or --menu")
	case c.Slot != nil && c.All:
		return b.usage("--slot names one dispatch on one pane: it does not combine with --all")
	case c.Device != nil && (c.List || c.Menu):
		return b.usage("--device names who dispatches: it does not combine with --list or --menu")
	}
	if c.Slot != nil {
		if err := ledger.CheckID("--slot", *c.Slot); err != nil {
			return b.usage("%v", err)
		}
		b.slotID = *c.Slot
	}
	if c.Device != nil {
		if err := ledger.CheckID("--device", *c.Device); err != nil {
			return b.usage("%v", err)
		}
		b.device = *c.Device
	}
	sel, err := c.Flags.Compile()
	if err != nil {
		return b.usage("%v", err)
	}
	b.sel = sel
	if c.Pane != "" && b.c.Flags.Set() {
		return b.usage("--pane and the selector flags exclude each other")
	}
	if c.Menu && b.c.Flags.Set() {
		return b.usage("--menu opens on one pane: pass --pane")
	}
	br, err := b.load()
	if err != nil {
		return b.fail(err)
	}
	switch {
	case c.List:
		return br.List()
	case c.Menu:
		return br.Menu()
	}
	return br.Fire()
}

// configDir is --config-dir, else the one resolution every tma command uses.
func (b *invocation) configDir() string {
	if b.c.ConfigDir != "" {
		return b.c.ConfigDir
	}
	return common.ConfigDir(b.e)
}

// load reads config, manifests and actions and builds the broker.
func (b *invocation) load() (*broker.Broker, error) {
	l, err := b.g.Load(b.e)
	if err != nil {
		return nil, err
	}
	dir := ""
	if d := b.configDir(); d != "" {
		dir = filepath.Join(d, "actions")
	}
	set, err := act.Load(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range set.Problems {
		fmt.Fprintf(b.e.Stderr, "%s: warning: action skipped: %v\n", b.e.Tool, p.Err)
	}
	c := b.c
	br := &broker.Broker{
		Req: broker.Request{Name: c.Name, Pane: c.Pane, All: c.All, Selector: b.sel, Selected: c.Flags.Set(),
			JSON: c.JSON, DryRun: c.DryRun, Force: c.Force, Yes: c.Yes, Text: c.Text, Arg: c.Arg,
			ExpectEpisodeMS: c.ExpectEpisodeMS, ExpectRequest: c.ExpectRequest, Source: c.Source,
			Slot: b.slotID, Device: b.device},
		Actions: set, Config: l.Config, Manifests: l.Manifests, Tuning: l.Tuning(),
		Tmux: b.g.Tmux(b.e, l.Config), Host: common.Host(), Client: b.g.Client,
		ConfigArg: configArg(b.e, b.g, l), ManifestDir: b.g.ManifestDir,
		Stdin: b.e.Stdin, Stdout: b.e.Stdout, Stderr: b.e.Stderr, Getenv: b.e.Getenv, Now: b.now,
		Errorf:            b.e.Errorf,
		DescribeTmuxError: func(tc *tmux.Client, err error) string { return common.DescribeTmuxError(b.e, tc, err) },
	}
	// A menu entry repeats the config dir when it was named (flag or
	// TMA_CONFIG_DIR), so the entry loads the same actions.
	if c.ConfigDir != "" || b.e.Getenv("TMA_CONFIG_DIR") != "" {
		br.ActArgs = []string{"--config-dir", b.configDir()}
	}
	return br, nil
}

// configArg is the --config a supervisor or a menu entry repeats: the file
// this invocation read, when the flag or TMA_CONFIG named it.
func configArg(e *common.Env, g *common.Globals, l *common.Loaded) string {
	if l.ConfigPath != "" && (g.Config != "" || e.Getenv("TMA_CONFIG") != "") {
		return l.ConfigPath
	}
	return ""
}

// superviseCmd is the detached supervisor of a detach = true action: the
// broker starts it with the child's environment and hands it the pane lock
// on stdin. Not for people.
type superviseCmd struct {
	Action    string `name:"action" required:"" help:"the action."`
	Pane      string `name:"pane" required:"" help:"the pane it fired on."`
	Agent     string `name:"agent" help:"the pane's agent when it fired."`
	Locator   string `name:"locator" help:"the pane's locator when it fired."`
	TimeoutMS int64  `name:"timeout-ms" required:"" help:"detach_timeout_ms."`
	Source    string `name:"source" default:"cli" help:"the surface that fired it, for the audit log."`
	Batch     string `name:"batch" help:"the --all batch it belonged to."`
	Device    string `name:"device" help:"act --device."`
	EpisodeMS int64  `name:"episode-ms" help:"the pane's episode when it fired."`
	Command   string `arg:"" help:"the command (sh -c)."`
}
