package daemoncmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/daemon/serve"
	"github.com/tmaproject/tma/lib/install"
)

type runCmd struct {
	Ensure   bool `name:"ensure" xor:"mode" help:"start a detached daemon for this server if none is running, then exit 0 (a no-op when one runs)."`
	Restart  bool `name:"restart" xor:"mode" help:"stop the running daemon (SIGTERM, never more) and start this build in its place, even when none was running."`
	Detached bool `name:"detached" xor:"mode" hidden:"" help:"internal: the process --ensure starts."`
	Upgrade  bool `name:"upgrade" xor:"mode" hidden:"" help:"internal: replace an older running daemon by [daemon] restart_on_upgrade's rule (what a surface or hook starts)."`
}

type transitionsCmd struct {
	JSON bool `name:"json" help:"print {\"schema\":1,\"cap\":256,\"recorded\":N,\"transitions\":[…]}."`
}

type debugCmd struct {
	Transitions transitionsCmd `cmd:"" help:"print the daemon's ring of recent state transitions, oldest first."`
}

type cli struct {
	common.Globals
	Run   runCmd   `cmd:"" name:"daemon" default:"withargs" help:"run the event-hub daemon for this tmux server in the foreground (tier 3; never required)."`
	Debug debugCmd `cmd:"" help:"the daemon's inspection tools."`
}

// Run is tma-daemon's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "The tier-3 daemon of one tmux server: the pipeline kept open, woken by tmux's pushes, answering status, hooks and subscribers over its socket.", args)
	if !ok {
		return code
	}
	if strings.HasPrefix(kctx.Command(), "debug transitions") {
		return transitions(e, &c.Globals, c.Debug.Transitions.JSON)
	}
	cfg, _, err := config.LoadResolved(c.Config, config.Env(e.Lookup))
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	srv, err := Resolve(e, &c.Globals, cfg)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	switch {
	case c.Run.Upgrade:
		if _, err := Upgrade(e, &c.Globals, cfg, srv); err != nil {
			e.Errorf("%v", err)
			return common.ExitFail
		}
		return common.ExitOK
	case c.Run.Ensure:
		if _, err := Ensure(e, &c.Globals, cfg, srv); err != nil {
			e.Errorf("%v", err)
			return common.ExitFail
		}
		return common.ExitOK
	case c.Run.Restart:
		return restart(e, &c.Globals, srv)
	}
	return foreground(e, &c.Globals, cfg, srv, c.Run.Detached)
}

// Server is a tmux server as the daemon keys it.
type Server struct {
	Socket string // #{socket_path}
	PID    int
	Paths  daemon.Paths
}

// Resolve asks the server the globals name for its #{socket_path} and pid
// (one tmux call): the daemon is keyed by the path tmux itself reports,
// however the server was named.
func Resolve(e *common.Env, g *common.Globals, cfg *config.Config) (*Server, error) {
	tc := g.Tmux(e, cfg)
	out, _, err := tc.Run(common.Background(), "", "display-message", "-p", "#{socket_path} #{pid}")
	if err != nil {
		return nil, errors.New(common.DescribeTmuxError(e, tc, err))
	}
	line := strings.TrimRight(out, "\n")
	i := strings.LastIndexByte(line, ' ')
	pid, perr := strconv.Atoi(line[i+1:])
	if i <= 0 || perr != nil {
		return nil, fmt.Errorf("tmux answered %q for its socket path and pid", line)
	}
	sock := line[:i]
	return &Server{Socket: sock, PID: pid, Paths: daemon.ForEnv(sock, e.Getenv)}, nil
}

// Ensure starts a detached daemon for srv unless one is running, and
// returns the hello of the daemon it started (nil when one already ran).
// A running one of an older build is replaced first when [daemon]
// restart_on_upgrade's rule says so.
func Ensure(e *common.Env, g *common.Globals, cfg *config.Config, srv *Server) (*daemon.Hello, error) {
	r, err := daemon.Find(srv.Paths)
	if err != nil {
		return nil, fmt.Errorf("daemon lock %s: %v", srv.Paths.Lock, err)
	}
	if r != nil {
		return Upgrade(e, g, cfg, srv)
	}
	return serve.Start(detached(e, g, srv))
}

// Upgrade replaces the running daemon when restart_on_upgrade is on and
// its rule holds (this build strictly newer, its pid alive, none replaced
// within a minute), quietly; it returns the new daemon's hello, nil when
// nothing was due.
func Upgrade(e *common.Env, g *common.Globals, cfg *config.Config, srv *Server) (*daemon.Hello, error) {
	if !cfg.Daemon.RestartOnUpgrade {
		return nil, nil
	}
	r, err := daemon.Find(srv.Paths)
	if err != nil || !daemon.UpgradeDue(r, common.Version) {
		return nil, err
	}
	release, ok := daemon.ClaimUpgrade(srv.Paths, time.Now())
	if !ok {
		return nil, nil // another process is at it, or one fired within the minute
	}
	defer release()
	if r, err = daemon.Find(srv.Paths); err != nil || !daemon.UpgradeDue(r, common.Version) {
		return nil, err // replaced meanwhile
	}
	q := *e
	q.Stdout = io.Discard
	return Restart(&q, g, srv)
}

// detached is the command line of a background daemon: this binary with
// the same server (by its path), config and manifest flags, absolute since
// it runs from /.
func detached(e *common.Env, g *common.Globals, srv *Server) serve.Detached {
	args := []string{"--socket-path", srv.Socket}
	if g.Config != "" {
		args = append(args, "--config", abs(g.Config))
	}
	if g.ManifestDir != "" {
		args = append(args, "--manifest-dir", abs(g.ManifestDir))
	}
	args = append(args, "daemon", "--detached")
	return serve.Detached{Exe: daemon.FindTool("tma-daemon"), Args: args, Env: environ(e), Paths: srv.Paths}
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// environ is this process's environment for a child: a pipeline lifeline
// of ours is not the child's.
func environ(e *common.Env) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMA_PIPELINE_PID=") {
			out = append(out, kv)
		}
	}
	return out
}

// Restart is --restart: SIGTERM the running daemon and wait for it, then
// start this build, whichever build ran before.
func Restart(e *common.Env, g *common.Globals, srv *Server) (*daemon.Hello, error) {
	old, err := serve.Stop(srv.Paths)
	switch {
	case errors.Is(err, serve.ErrWedged):
		return nil, fmt.Errorf("the running daemon (pid %d) took SIGTERM but did not exit within %s; it was not killed, and exits once it unwedges (the SIGTERM stands)\n"+
			"hint: no replacement was started: run `tma daemon --ensure` once it has gone", old.PID, serve.StopWait)
	case err != nil:
		return nil, err
	case old != nil:
		fmt.Fprintln(e.Stdout, "tma: stopped the running daemon")
	}
	h, err := serve.Start(detached(e, g, srv))
	if err != nil {
		return nil, fmt.Errorf("the new daemon did not come up: %v", err)
	}
	return h, nil
}

func restart(e *common.Env, g *common.Globals, srv *Server) int {
	h, err := Restart(e, g, srv)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	fmt.Fprintf(e.Stdout, "tma: daemon restarted (%s)\n", h.Version)
	return common.ExitOK
}

// foreground runs the daemon in this process: `tma daemon` (the log echoed
// to stderr) or the detached process --ensure started (the log only, and a
// lost race for the lock is a quiet exit 0).
func foreground(e *common.Env, g *common.Globals, cfg *config.Config, srv *Server, isDetached bool) int {
	if err := daemon.EnsureDir(srv.Paths.Dir); err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	var echo io.Writer
	if !isDetached {
		echo = e.Stderr
	}
	log, err := serve.OpenLog(srv.Paths.Log, echo)
	if err != nil {
		e.Errorf("the daemon's log %s: %v", srv.Paths.Log, err)
		return common.ExitFail
	}
	defer log.Close()
	stageArgs := []string{"--socket-path", srv.Socket, "--config", srv.Paths.Config}
	if g.ManifestDir != "" {
		stageArgs = append(stageArgs, "--manifest-dir", g.ManifestDir)
	}
	stages := []serve.Stage{
		// The tick: a second between tmux's pushes, shorter where the
		// config allows no control client and the tick is all there is.
		{Name: "tma-scan", Path: daemon.FindTool("tma-scan"), Args: append(append([]string{}, stageArgs...), "--follow", "--daemon"),
			ArgsFrom: func(cfg *config.Config) []string {
				return []string{"--interval", daemon.ScanInterval(cfg.Tmux.ControlClients).String()}
			}},
		{Name: "tma-fold", Path: daemon.FindTool("tma-fold"), Args: stageArgs},
		// The daemon's stamp fires [notify] for the episodes it wins, with
		// the triggers only a resident process can watch (stall,
		// context_high, osc_progress).
		{Name: "tma-stamp", Path: daemon.FindTool("tma-stamp"), Args: append(append([]string{}, stageArgs...), "--notify")},
	}
	env := append(environ(e), "TMA_PIPELINE_PID="+strconv.Itoa(os.Getpid()))
	// The loads' warnings (a user manifest skipped) go to the log.
	le := *e
	le.Stderr = logWriter{log}
	o := serve.Options{
		Paths: srv.Paths, ServerPID: srv.PID, Version: common.Version,
		Load: func() (*serve.Loaded, error) {
			l, err := g.Load(&le)
			if err != nil {
				return nil, err
			}
			return &serve.Loaded{Config: l.Config, ConfigPath: l.ConfigPath, Manifests: l.Manifests}, nil
		},
		TmuxBin:    func(cfg *config.Config) string { return cfg.TmuxBin(config.Env(e.Lookup)) },
		Stages:     stages,
		Env:        env,
		Log:        log,
		RecordPath: install.Env{Getenv: e.Getenv}.RecordPath(),
	}
	// [serve.http] enabled: the web face lives as long as this daemon
	// (the config read at start; a reload does not start or stop it).
	if cfg.Serve.HTTP.Enabled {
		webArgs := append([]string{}, stageArgs...)
		o.Started = func(ctx context.Context) { serve.HostWeb(ctx, log, webArgs, environ(e)) }
	}
	err = serve.Run(o)
	var running *daemon.ErrRunning
	switch {
	case errors.As(err, &running) && isDetached:
		return common.ExitOK
	case errors.As(err, &running):
		e.Errorf("%v\nhint: `tma daemon --restart` replaces it", err)
		return common.ExitFail
	case err != nil && isDetached:
		log.Printf("exiting: %v", err)
		return common.ExitFail
	case err != nil:
		e.Errorf("%v", err)
		return common.ExitFail
	}
	return common.ExitOK
}

type logWriter struct{ l *serve.Log }

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			w.l.Printf("%s", line)
		}
	}
	return len(p), nil
}

// transitions is `tma debug transitions`.
func transitions(e *common.Env, g *common.Globals, asJSON bool) int {
	cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	srv, err := Resolve(e, g, cfg)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	rep, c, err := daemon.Call(srv.Paths.Socket, daemon.Request{Verb: daemon.VerbTransitions}, 2*time.Second)
	var refused *daemon.Refused
	switch {
	case errors.Is(err, daemon.ErrNoDaemon):
		e.Errorf("no daemon running for this server (%s): the transitions ring is daemon memory\nhint: start one with `tma daemon --ensure`", srv.Paths.Socket)
		return common.ExitFail
	case errors.As(err, &refused) && refused.Code == daemon.CodeUnknownVerb:
		e.Errorf("the running daemon is older than this tma (%s) and does not know `debug transitions` (%s)\nhint: a reload cannot add a protocol verb; run `tma daemon --restart` to put this build in its place", common.Version, refused.Msg)
		return common.ExitFail
	case err != nil:
		e.Errorf("asking the daemon on %s: %v", srv.Paths.Socket, err)
		return common.ExitFail
	}
	c.Close()
	doc := rep.Transitions
	if doc == nil {
		e.Errorf("the daemon's answer carried no transitions")
		return common.ExitFail
	}
	if asJSON {
		b, _ := json.Marshal(doc)
		fmt.Fprintf(e.Stdout, "%s\n", b)
		return common.ExitOK
	}
	if err := doc.WriteText(e.Stdout); err != nil {
		return common.ExitFail
	}
	return common.ExitOK
}
