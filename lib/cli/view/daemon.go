package view

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
	// [daemon] autostart and restart_on_upgrade act here, never waiting.
	ver := ""
	if rep != nil {
		ver = rep.Version
	}
	daemon.AfterAsk(p, ver, err, daemon.PolicyOf(cfg.Daemon.Autostart, cfg.Daemon.RestartOnUpgrade, common.Version, g.Config, g.ManifestDir))
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
