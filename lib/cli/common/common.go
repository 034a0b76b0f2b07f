package common

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/filestate"
	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/tmux"
)

// Version is the tma version; the build may override it with -ldflags.
var Version = "0.1.0"

// Globals are accepted by every command, before or after the subcommand.
type Globals struct {
	SocketName  string `name:"socket-name" short:"L" placeholder:"NAME" help:"tmux server socket name (as tmux -L)."`
	SocketPath  string `name:"socket-path" short:"S" placeholder:"PATH" help:"tmux server socket path (as tmux -S); wins over TMA_SOCKET_PATH."`
	Config      string `name:"config" placeholder:"PATH" help:"config file (default: TMA_CONFIG, then $XDG_CONFIG_HOME/tma/config.toml, then ~/.config/tma/config.toml)."`
	ManifestDir string `name:"manifest-dir" placeholder:"DIR" help:"load agent manifests from DIR only (a closed set: no bundled, no user manifests)."`
	Client      string `name:"client" placeholder:"NAME" help:"the tmux client acting (a run-shell binding passes \"#{client_name}\")."`
}

// Env is the process environment a command runs in.
type Env struct {
	Tool   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Lookup func(string) (string, bool)
	// Stage: a middle stage of a dispatcher pipeline. Its failures travel
	// in-band to the last stage, which says them once; it prints none of
	// its own, and its load warnings are the fold's to say.
	Stage bool

	quiet bool // stderr is discarded (Quiet): nothing is said, so nothing is read early to say it
}

// Quieted is e for loading in a middle stage that is not the one that
// reports load warnings.
func (e *Env) Quieted() *Env {
	if e.Stage {
		return Quiet(e)
	}
	return e
}

// DispatchedEnv is set by the dispatcher for everything it runs: the user
// typed `tma …`, so every message and every usage line names tma, not the
// tma-* binary that happens to answer.
const DispatchedEnv = "TMA_DISPATCHED"

// NewEnv wraps the process's streams and environment.
func NewEnv(tool string, stdin io.Reader, stdout, stderr io.Writer) *Env {
	if os.Getenv(DispatchedEnv) == "1" {
		tool = "tma"
	}
	// TMA_PIPELINE_PID is read before lifeline.Bind unsets it.
	_, stage := os.LookupEnv(lifeline.PipelineEnv)
	return &Env{Tool: tool, Stdin: stdin, Stdout: stdout, Stderr: stderr, Lookup: os.LookupEnv, Stage: stage}
}

// Getenv returns the value of key, "" when unset.
func (e *Env) Getenv(k string) string { v, _ := e.Lookup(k); return v }

// Errorf prints `<tool>: error: <msg>` and any hints.
func (e *Env) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	lines := strings.Split(msg, "\n")
	fmt.Fprintf(e.Stderr, "%s: error: %s\n", e.Tool, lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintln(e.Stderr, l)
	}
}

// Exit codes shared by every command.
const (
	ExitOK      = 0
	ExitFail    = 1
	ExitUsage   = 2
	ExitVanish  = 3
	ExitRefused = 4
)

// Parse parses args into cli with kong, mapping a parse error to exit 2.
// It returns ok=false with the exit code when the caller should stop (an
// error, or --help printed).
func Parse(e *Env, cli any, description string, args []string) (*kong.Context, int, bool) {
	return parse(e, cli, description, args, true)
}

// ParseWhole is Parse with kong given the whole grammar every time: the
// reference tests/cli holds the pruned parse to.
func ParseWhole(e *Env, cli any, description string, args []string) (*kong.Context, int, bool) {
	return parse(e, cli, description, args, false)
}

func parse(e *Env, cli any, description string, args []string, pruning bool) (*kong.Context, int, bool) {
	target := cli
	if pruning {
		if t, back, ok := prune(cli, args); ok {
			target = t
			defer back()
		}
	}
	exited := -1
	p, err := kong.New(target,
		kong.Name(e.Tool),
		kong.Description(description),
		kong.Writers(e.Stdout, e.Stderr),
		kong.Exit(func(code int) { exited = code }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": Version},
	)
	if err != nil {
		e.Errorf("%v", err)
		return nil, ExitFail, false
	}
	ctx, err := p.Parse(args)
	if exited >= 0 {
		return nil, exited, false
	}
	if err != nil {
		e.Errorf("%v", err)
		return nil, ExitUsage, false
	}
	return ctx, 0, true
}

// Loaded is config and manifests, loaded once per invocation.
type Loaded struct {
	Config     *config.Config
	ConfigPath string
	Manifests  *manifest.Set
}

// Load reads the config and opens the manifests the globals name. A
// manifest is decoded when first asked for (Manifests.Get, or All for
// identity), so a run pays for the agents it meets; a user file that fails
// then is named on stderr and skipped.
func (g *Globals) Load(e *Env) (*Loaded, error) {
	cfg, path, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		return nil, err
	}
	return g.loadWith(e, cfg, path)
}

// LoadReporting is Load for a command that reports on everything
// (doctor): a config that does not load is returned as cfgErr, with the
// defaults standing in for it (ConfigPath the file that failed), so the
// manifests and the rest are still looked at; err is any other failure.
func (g *Globals) LoadReporting(e *Env) (l *Loaded, cfgErr, err error) {
	cfg, path, cfgErr := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if cfgErr != nil {
		cfg = config.Default()
	}
	l, err = g.loadWith(e, cfg, path)
	return l, cfgErr, err
}

func (g *Globals) loadWith(e *Env, cfg *config.Config, path string) (*Loaded, error) {
	ms, err := manifest.Load(g.manifestOptions(e))
	if err != nil {
		return nil, err
	}
	for _, a := range cfg.Agents {
		ms.Override(a.Name, a.Enabled, a.ProcessNames)
	}
	if !e.quiet {
		// A load that speaks names every broken user manifest now, not
		// only the ones its run meets: a file that fails to parse defines
		// no agent, so no run would ever meet it. This reads the user
		// files only; the bundled manifests stay unbuilt until asked for.
		ms.Problems()
	}
	return &Loaded{Config: cfg, ConfigPath: path, Manifests: ms}, nil
}

// LoadAgent is Load for an agent event: the config and the one manifest it
// names. It returns a nil agent for an unknown or disabled agent.
func (g *Globals) LoadAgent(e *Env, name string) (*Loaded, *manifest.Agent, error) {
	l, err := g.Load(e)
	if err != nil {
		return nil, nil, err
	}
	a := l.Manifests.Get(name)
	if a == nil {
		return nil, nil, nil
	}
	return l, a, nil
}

func (g *Globals) manifestOptions(e *Env) manifest.LoadOptions {
	o := manifest.LoadOptions{ManifestDir: g.ManifestDir, OnProblem: func(p manifest.Problem) {
		fmt.Fprintf(e.Stderr, "%s: warning: manifest skipped: %v\n", e.Tool, p.Err)
	}}
	if g.ManifestDir == "" {
		o.UserDir = userManifestDir(e)
	}
	return o
}

// sources is a snapshot of every file Load reads or would read: the config
// candidates and the manifest directory's <stem>.toml files.
func (g *Globals) sources(e *Env) filestate.Snapshot {
	cands := config.Candidates(g.Config, config.Env(e.Lookup), e.Getenv("HOME"))
	return filestate.Take(cands, filestate.Dir{Path: g.manifestOptions(e).Dir(), Suffix: ".toml"})
}

func userManifestDir(e *Env) string {
	if d := ConfigDir(e); d != "" {
		return filepath.Join(d, "agents")
	}
	return ""
}

// ConfigDir is tma's config dir, where user agents/ and actions/ live:
// TMA_CONFIG_DIR, else $XDG_CONFIG_HOME/tma (when absolute), else
// ~/.config/tma; "" when none can be found.
func ConfigDir(e *Env) string {
	if d := e.Getenv("TMA_CONFIG_DIR"); d != "" {
		return d
	}
	if x := e.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "tma")
	}
	if h := e.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "tma")
	}
	return ""
}

// Tuning is the fold's slice of the config.
func (l *Loaded) Tuning() fold.Tuning {
	f := l.Config.Fold
	return fold.Tuning{DwellSecs: f.DwellSecs, HookDecaySecs: f.HookDecaySecs, BlockedDecaySecs: f.BlockedDecaySecs, DemoteEdges: l.Config.Daemon.DemoteEdges}
}

// Tmux returns the client for the server the globals and environment name.
func (g *Globals) Tmux(e *Env, cfg *config.Config) *tmux.Client {
	bin := "tmux"
	if cfg != nil {
		bin = cfg.TmuxBin(config.Env(e.Lookup))
	} else {
		bin = tmux.ResolveBin("", e.Getenv)
	}
	return tmux.New(bin, tmux.ResolveTarget(g.SocketName, g.SocketPath, e.Getenv))
}

// SocketDescription names the socket a no-server error is about, resolving
// tmux's default path the way tmux does.
func SocketDescription(e *Env, t tmux.Target) string {
	if t.SocketPath != "" {
		return t.SocketPath
	}
	dir := e.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	name := t.SocketName
	if name == "" {
		name = "default"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// DescribeTmuxError renders a tmux failure for the user.
func DescribeTmuxError(e *Env, c *tmux.Client, err error) string {
	if errors.Is(err, tmux.ErrNoServer) {
		return "no tmux server running on " + SocketDescription(e, c.Target)
	}
	return err.Error()
}

// Host is the host name rows carry.
func Host() string {
	h, _ := os.Hostname()
	return h
}

// Background is the context commands run under.
func Background() context.Context { return context.Background() }
