package pickcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

type jumpCmd struct {
	selector.Flags
	Attention bool   `name:"attention" xor:"dir" help:"whoever needs you next: the longest-blocked agent, then the longest-done (clears its attention)."`
	Blocked   bool   `name:"blocked" xor:"dir" help:"the longest-blocked agent (clears its attention)."`
	Next      bool   `name:"next" xor:"dir" help:"the next agent by position, wrapping (the default; leaves attention alone)."`
	Back      bool   `name:"back" xor:"dir" help:"pop one entry of this client's return trail."`
	Home      bool   `name:"home" xor:"dir" help:"return to the trail's bottom entry and empty it."`
	Pane      string `name:"pane" xor:"dir" placeholder:"ID" help:"this pane (clears its attention)."`
	Menu      bool   `name:"menu" xor:"dir" help:"a tmux menu of the agents in picker order, 1-9 quick-select."`
	Host      string `name:"host" placeholder:"NAME" help:"with --pane: a [[remote]]'s pane, reached in a local window attached to it over ssh (opened, or reused)."`
}

type attachCmd struct {
	Pane  string `name:"pane" required:"" placeholder:"ID" help:"the pane to attach to."`
	Print bool   `name:"print" help:"print the tmux argv instead of running it."`
}

type pickCmd struct {
	Print bool `name:"print" hidden:"" help:"print the fzf argv and the rows instead of running fzf."`
}

type watchCmd struct {
	selector.Flags
	TemporarySession bool   `name:"temporary-session" help:"run in a one-use tmux session, closed after a jump or quit (the prefix G placement)."`
	Table            bool   `name:"table" help:"open on the full-width table."`
	Print            bool   `name:"print" hidden:"" help:"print the first frame's rows instead of opening the dashboard."`
	InSession        bool   `name:"in-session" hidden:"" help:"the watcher inside the temporary session (internal)."`
	Origin           string `name:"origin" hidden:"" help:"the pane the temporary session was opened from (internal)."`
}

type previewCmd struct {
	Pane string `arg:"" help:"the pane to capture."`
}

type feedCmd struct {
	Socket string `arg:"" help:"the surface's control socket."`
	Verb   string `arg:"" help:"rows, load, header, layout, pick, menu, focus, click or preview-mode."`
	Arg    string `arg:"" optional:"" help:"the pane or key."`
}

type cli struct {
	common.Globals
	Pick    pickCmd    `cmd:"" default:"1" help:"the fuzzy picker (tma with no command)."`
	Jump    jumpCmd    `cmd:"" help:"jump focus to an agent pane across sessions."`
	Attach  attachCmd  `cmd:"" help:"hand this terminal to the tmux session a pane lives in."`
	Watch   watchCmd   `cmd:"" help:"a persistent live dashboard."`
	Preview previewCmd `cmd:"" hidden:"" help:"print a pane's screen (the picker's preview)."`
	Feed    feedCmd    `cmd:"" hidden:"" help:"talk to a running picker (internal)."`
}

// Run is tma-pick's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "The tma picker, jump, attach and watch.", args)
	if !ok {
		return code
	}
	s := &sess{e: e, g: &c.Globals}
	switch cmd := kctx.Command(); {
	case strings.HasPrefix(cmd, "jump"):
		return s.jumpMain(&c.Jump)
	case strings.HasPrefix(cmd, "attach"):
		return s.attach(&c.Attach)
	case strings.HasPrefix(cmd, "watch"):
		return s.watch(&c.Watch)
	case strings.HasPrefix(cmd, "preview"):
		return s.preview(c.Preview.Pane)
	case strings.HasPrefix(cmd, "feed"):
		return feed(e, c.Feed.Socket, c.Feed.Verb, c.Feed.Arg)
	default:
		return s.picker(&c.Pick)
	}
}

// sess is one invocation: the environment, globals, config and tmux client.
type sess struct {
	e  *common.Env
	g  *common.Globals
	l  *common.Loaded
	rl *common.Reloader // the picker and watch re-read config and manifests as they refresh
	tc *tmux.Client
	// noPush keeps forward jumps off the trail (the temporary watch session
	// pushed its origin already); temporary is that session's id, origin
	// the pane it was opened from.
	noPush            bool
	temporary, origin string
}

func (s *sess) load() error {
	if s.rl != nil {
		s.l = s.rl.Get()
		return nil
	}
	rl, err := s.g.NewReloader(s.e)
	if err != nil {
		return err
	}
	s.rl, s.l = rl, rl.Get()
	s.tc = s.g.Tmux(s.e, s.l.Config)
	return nil
}

// cycle runs one full cycle; git resolves the rows' repo/branch labels.
func (s *sess) cycle(git *gitinfo.Resolver) (*fleet.Fleet, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	f, err := fleet.Run(common.Background(), s.tc, fleet.Options{
		Manifests: s.l.Manifests, Tuning: s.l.Tuning(), Host: common.Host(),
		Now: func() int64 { return time.Now().UnixMilli() }, Git: git,
	})
	if err != nil {
		return nil, errors.New(common.DescribeTmuxError(s.e, s.tc, err))
	}
	return f, nil
}

// surface is what a surface (jump, the picker, watch) does after its first
// cycle, as tma ls and tma status do: [daemon] autostart starts a daemon
// where none holds the lock, restart_on_upgrade replaces an older one, both
// detached and not waited for (daemon.Surface: a stat of the lock file in
// the common case). The server is the one the cycle observed.
func (s *sess) surface(f *fleet.Fleet) {
	if f == nil || f.Cycle.Server == "" || s.l == nil {
		return
	}
	d := s.l.Config.Daemon
	daemon.Surface(daemon.ForEnv(f.Cycle.Server, s.e.Getenv), daemon.PolicyOf(d.Autostart, d.RestartOnUpgrade, common.Version, s.g.Config, s.g.ManifestDir))
}

func (s *sess) fail(err error) int {
	s.e.Errorf("%v", err)
	return common.ExitFail
}

func (s *sess) note(format string, a ...any) {
	fmt.Fprintf(s.e.Stderr, "tma: note: "+format+"\n", a...)
}

// tmaArgv is the dispatcher (beside this binary when installed together,
// else tma on $PATH) with the server the cycle observed resolved in.
func tmaArgv(server string) []string {
	t := "tma"
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "tma")
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
			t = beside
		}
	}
	if server == "" {
		return []string{t}
	}
	return []string{t, "-S", server}
}

// envPrefix is what goes before a command the tmux server runs for this
// surface (a menu entry, the temporary watch session's watcher): tmux runs
// it in the server's environment, not this process's, so a tmux named by
// TMA_TMUX_BIN or [tmux] bin is written in as `env TMA_TMUX_BIN=<it>`;
// nothing for plain tmux.
func (s *sess) envPrefix() []string {
	if s.tc == nil || s.tc.Bin == "" || s.tc.Bin == "tmux" {
		return nil
	}
	return []string{"env", "TMA_TMUX_BIN=" + s.tc.Bin}
}

// selfArgv is this binary with the server resolved in (for fzf's commands).
func selfArgv(server string) []string {
	self, err := os.Executable()
	if err != nil {
		self = "tma-pick"
	}
	if server == "" {
		return []string{self}
	}
	return []string{self, "-S", server}
}

// childArgv is selfArgv with this invocation's --config and --manifest-dir:
// what fzf's commands and watch's transcript run, so they read what this
// surface reads.
func (s *sess) childArgv(server string) []string {
	argv := selfArgv(server)
	if s.g.Config != "" {
		argv = append(argv, "--config", s.g.Config)
	}
	if s.g.ManifestDir != "" {
		argv = append(argv, "--manifest-dir", s.g.ManifestDir)
	}
	return argv
}

// childEnv is the environment of every program a surface starts (fzf and
// the commands it runs, the act menu, watch's transcript): this process's,
// with TMA_TMUX_BIN naming the tmux this surface runs, however it was
// chosen (TMA_TMUX_BIN, [tmux] bin of the config it was given, or tmux on
// $PATH), so each child talks to the server the way the surface does. The
// server itself travels as -S in their argv.
func (s *sess) childEnv() []string {
	env := os.Environ()
	if s.tc == nil || s.tc.Bin == "" {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMA_TMUX_BIN=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMA_TMUX_BIN="+s.tc.Bin)
}

// clientFlag is --client unless it is an unexpanded #{client_name}.
func (s *sess) clientFlag() string {
	if jump.Unexpanded(s.g.Client) {
		return ""
	}
	return s.g.Client
}
