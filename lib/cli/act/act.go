package act

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	libact "github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

type actCmd struct {
	selector.Flags
	Name            string   `arg:"" optional:"" help:"the action to fire; omit it with --list or --menu."`
	Pane            string   `name:"pane" placeholder:"ID" help:"the target pane (default: $TMUX_PANE)."`
	All             bool     `name:"all" help:"fire on every agent pane the selector flags match, each with its own lock and gate."`
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
		return supervise(e, &c.Globals, &c.Supervise)
	}
	b := &broker{e: e, g: &c.Globals, c: &c.Act, now: now}
	return b.main()
}

// broker is one invocation.
type broker struct {
	e       *common.Env
	g       *common.Globals
	c       *actCmd
	l       *common.Loaded
	actions *libact.Set
	tc      *tmux.Client
	now     func() int64
	sel     *selector.Selector
	slotID  string     // --slot
	device  string     // --device
	slot    *slotClaim // the ledger claim of a --slot dispatch in flight
	viaAPI  bool       // the fire in hand answered over an agent's HTTP server
}

func (b *broker) usage(format string, a ...any) int {
	b.e.Errorf(format, a...)
	return common.ExitUsage
}

func (b *broker) fail(err error) int {
	b.e.Errorf("%v", err)
	return common.ExitFail
}

func (b *broker) note(format string, a ...any) {
	fmt.Fprintf(b.e.Stderr, "tma: "+format+"\n", a...)
}

// main checks the invocation (usage errors win, before config or tmux),
// loads, and runs the mode.
func (b *broker) main() int {
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
	case c.ExpectRequest != nil && (*c.ExpectRequest == "" || libact.HasControl(*c.ExpectRequest)):
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
	if err := b.load(); err != nil {
		return b.fail(err)
	}
	switch {
	case c.List:
		return b.list()
	case c.Menu:
		return b.menu()
	}
	return b.fireMain()
}

// configDir is --config-dir, else the one resolution every tma command uses.
func (b *broker) configDir() string {
	if b.c.ConfigDir != "" {
		return b.c.ConfigDir
	}
	return common.ConfigDir(b.e)
}

func (b *broker) load() error {
	l, err := b.g.Load(b.e)
	if err != nil {
		return err
	}
	b.l = l
	dir := ""
	if d := b.configDir(); d != "" {
		dir = filepath.Join(d, "actions")
	}
	set, err := libact.Load(dir)
	if err != nil {
		return err
	}
	for _, p := range set.Problems {
		fmt.Fprintf(b.e.Stderr, "%s: warning: action skipped: %v\n", b.e.Tool, p.Err)
	}
	b.actions = set
	b.tc = b.g.Tmux(b.e, l.Config)
	return nil
}

// cycle runs one full cycle (every invocation is a driver); pane scopes it
// to one pane, the broker's re-read under the lock.
func (b *broker) cycle(pane string, git *gitinfo.Resolver) (*fleet.Fleet, error) {
	f, err := fleet.Run(common.Background(), b.tc, fleet.Options{
		Manifests: b.l.Manifests, Tuning: b.l.Tuning(), Host: common.Host(),
		Now: b.now, Git: git, Pane: pane,
	})
	if err != nil {
		return nil, errors.New(common.DescribeTmuxError(b.e, b.tc, err))
	}
	return f, nil
}

// server is a client on the server the cycle observed.
func (b *broker) server(f *fleet.Fleet) *tmux.Client {
	c := *b.tc
	if f != nil && f.Cycle.Server != "" {
		c.Target = tmux.Target{SocketPath: f.Cycle.Server}
	}
	return &c
}

// target reads what the gate needs about pane from a cycle; exists is false
// when the server has no such pane.
func (b *broker) target(f *fleet.Fleet, pane string) (t libact.Target, row *record.Row, exists bool) {
	p := f.Pane(pane)
	if p == nil {
		return libact.Target{Pane: pane}, nil, false
	}
	t = libact.Target{Pane: pane, CWD: p.CWD, Title: p.Title, Lock: p.Opts[libact.LockOption],
		PendingTool: p.Opts["@agent_pending_tool"], PendingCall: p.Opts["@agent_pending_call"]}
	row = f.Row(pane)
	if row == nil {
		return t, nil, true
	}
	a := &row.Row
	t.Agent, t.State = a.Agent, a.State
	t.Detail = deref(a.Detail)
	t.Context = a.Context
	t.Session = deref(a.Session)
	if a.EpisodeMS != nil {
		t.EpisodeMS = *a.EpisodeMS
	}
	if row.CWD != "" {
		t.CWD = row.CWD
	}
	t.PID = p.AgentPID
	if m := b.l.Manifests.Get(a.Agent); m != nil && m.Telemetry != nil && m.Telemetry.Context != nil {
		t.Telemetry = true
	}
	return t, row, true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// defaultPane is $TMUX_PANE: the pane the command runs in.
func (b *broker) defaultPane() string {
	if p := b.e.Getenv("TMUX_PANE"); tmux.ValidPaneID(p) {
		return p
	}
	return ""
}

// clientFlag is --client unless it is an unexpanded #{client_name}.
func (b *broker) clientFlag() string {
	if jump.Unexpanded(b.g.Client) {
		return ""
	}
	return b.g.Client
}

// tell shows a message on the acting client: a binding's or a menu entry's
// run-shell drops stderr, so the person who pressed the key sees it there.
func (b *broker) tell(f *fleet.Fleet, msg string) {
	if f == nil || b.clientFlag() == "" {
		return
	}
	cl, err := jump.ResolveClient(f, b.g.Client, b.e.Getenv)
	if err != nil {
		return
	}
	_, _, _ = b.server(f).Run(common.Background(), "", "display-message", "-c", cl.Name, tmux.DisplayText("tma: "+msg))
}

// tmaArgv is the dispatcher (beside this binary when installed together,
// else tma on $PATH) with the server and the config this invocation used,
// so a menu entry lands on the same server with the same actions.
func (b *broker) tmaArgv(server string) []string {
	t := "tma"
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "tma")
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
			t = beside
		}
	}
	argv := []string{t}
	if server != "" {
		argv = append(argv, "-S", server)
	}
	if cfg := b.l.ConfigPath; cfg != "" && (b.g.Config != "" || b.e.Getenv("TMA_CONFIG") != "") {
		argv = append(argv, "--config", cfg)
	}
	if b.g.ManifestDir != "" {
		argv = append(argv, "--manifest-dir", b.g.ManifestDir)
	}
	return argv
}

// actArgs are the act flags a menu entry repeats: the config dir when it
// was named (flag or TMA_CONFIG_DIR), so the entry loads the same actions.
func (b *broker) actArgs() []string {
	if b.c.ConfigDir != "" || b.e.Getenv("TMA_CONFIG_DIR") != "" {
		return []string{"--config-dir", b.configDir()}
	}
	return nil
}

func nonce() string {
	var n [6]byte
	_, _ = rand.Read(n[:])
	return hex.EncodeToString(n[:])
}
