package serve

import (
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
)

// remote answers VerbRemote: one snapshot of a [[remote]] of the daemon's
// config over the connection its pool holds (dialled on the first ask,
// dropped after remote.PoolIdle without one), so a one-shot ls --host or
// status --host pays one request instead of an ssh session. An entry the
// daemon's config does not have as the asker does is refused, and the
// asker dials as it would with no daemon.
func (d *state) remote(c net.Conn, ask *daemon.RemoteAsk) daemon.Reply {
	if ask == nil || ask.Name == "" {
		return daemon.Reply{Code: daemon.CodeBadRequest, Error: "a remote request names its [[remote]]"}
	}
	l := d.current()
	if l == nil {
		return daemon.Reply{Code: daemon.CodeNotReady, Error: "the config is not loaded yet"}
	}
	r := l.Config.Remote(ask.Name)
	if r == nil || !slices.Equal(r.Command, ask.Command) || r.Timeout().Milliseconds() != ask.TimeoutMS {
		return daemon.Reply{Code: daemon.CodeUnknownRemote,
			Error: fmt.Sprintf("this daemon's config has no [[remote]] %q as the asker's", ask.Name)}
	}
	// The ask may take the remote's whole timeout; the reply still goes.
	_ = c.SetDeadline(time.Now().Add(r.Timeout() + RequestTimeout))
	res := d.pool.Snapshot(d.ctx, *r)
	snap := &daemon.RemoteSnap{Name: r.Name, Rows: res.Rows, Panes: res.Panes}
	if res.Err != nil {
		snap.Error = res.Err.Error()
	}
	return daemon.Reply{OK: true, Remote: snap}
}
