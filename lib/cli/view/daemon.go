package viewcmd

import (
	"bytes"
	"io"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/tmux"
)

// ExitNoDaemon is `status --from-daemon` finding no daemon to answer
// (EX_TEMPFAIL): the dispatcher then runs the cycle itself.
const ExitNoDaemon = 75

// StatusAsk bounds asking the daemon: a wedged one costs a status line
// this much, then the cycle runs as it would with no daemon.
const StatusAsk = 250 * time.Millisecond

// fromDaemon asks the server's daemon for its latest cycle, found with no
// tmux call, and returns its records (what the pipeline would have fed
// tma-view), or false when no daemon answers with one.
func fromDaemon(e *common.Env, g *common.Globals, cfg *config.Config) (io.Reader, bool) {
	t := tmux.ResolveTarget(g.SocketName, g.SocketPath, e.Getenv)
	p := daemon.ForEnv(daemon.ServerPath(t, e.Getenv), e.Getenv)
	rep, c, err := daemon.Call(p.Socket, daemon.Request{Verb: daemon.VerbStatus}, StatusAsk)
	// [daemon] restart_on_upgrade acts on the reply's version, never
	// waiting; with no daemon, autostart is the cycle's (surface).
	if rep != nil {
		daemon.AfterAsk(p, rep.Version, err, daemon.PolicyOf(false, cfg.Daemon.RestartOnUpgrade, common.Version, g.Config, g.ManifestDir))
	}
	if err != nil {
		return nil, false
	}
	defer c.Close()
	b, err := io.ReadAll(c.Rest())
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return bytes.NewReader(b), true
}

// surface is `tma status`'s cycle run with no daemon asked (none had a
// socket, or none answered), and every `tma ls`: [daemon] autostart and
// restart_on_upgrade act here from what the runtime directory shows, never
// waiting.
func surface(e *common.Env, g *common.Globals, cfg *config.Config, server string) {
	if server == "" {
		return
	}
	p := daemon.ForEnv(server, e.Getenv)
	daemon.Surface(p, daemon.PolicyOf(cfg.Daemon.Autostart, cfg.Daemon.RestartOnUpgrade, common.Version, g.Config, g.ManifestDir))
}
