package hookcmd

import (
	"errors"
	"os"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/tmux"
)

// DaemonAckTimeout bounds the whole hand-off to a daemon: dial, send, ack.
// The daemon acks once it has mapped the event (no tmux call before the
// ack), so this is a socket round trip; past it the hook stamps the pane
// itself, and a commit that still lands from the daemon loses the guard
// to the hook's identical one or wins it, never both.
const DaemonAckTimeout = 20 * time.Millisecond

// handToDaemon gives the event to the server's daemon and reports whether
// the daemon took it. The daemon is found with no tmux call (the socket
// path the client already knows); none listening, a refusal (its
// manifests map the event to nothing, or it is too old to know the verb)
// or a slow answer all return false.
func handToDaemon(e *common.Env, tc *tmux.Client, cfg *config.Config, ev hook.Event, say func(string, ...any)) bool {
	p := daemon.ForEnv(daemon.ServerPath(tc.Target, e.Getenv), e.Getenv)
	req := &daemon.Event{Agent: ev.Agent.Name, Name: ev.Name, Pane: ev.Pane, Explicit: ev.Explicit, Payload: ev.Payload.Raw, NowMS: ev.NowMS,
		LaneDir: lane.Dir(e.Getenv), LaneServer: serverKey(tc)}
	// A start event's agent pid is found in the hook's own parent chain,
	// which is gone by the time the daemon writes.
	if m := ev.Agent.MapEvent(ev.Name, ev.Payload.Raw); m != nil && m.Claim.Lifecycle == "start" {
		for _, a := range proc.Ancestors(os.Getppid()) {
			req.Chain = append(req.Chain, daemon.Ancestor{PID: a.PID, Comm: a.Comm})
		}
	}
	rep, c, err := daemon.Call(p.Socket, daemon.Request{Verb: daemon.VerbEvent, Event: req}, DaemonAckTimeout)
	if rep != nil {
		// restart_on_upgrade acts from the hook path too (autostart does not).
		daemon.AfterAsk(p, rep.Version, err, daemon.PolicyOf(false, cfg.Daemon.RestartOnUpgrade, common.Version, "", ""))
	}
	var refused *daemon.Refused
	switch {
	case err == nil:
		c.Close()
		say("handed to the daemon (%s): it commits the event", p.Socket)
		return true
	case errors.Is(err, daemon.ErrNoDaemon):
		say("no daemon for this server: stamping the pane here")
	case errors.As(err, &refused):
		say("the daemon declined (%s: %s): stamping the pane here", refused.Code, refused.Msg)
	default:
		say("the daemon did not acknowledge (%v): stamping the pane here", err)
	}
	return false
}
