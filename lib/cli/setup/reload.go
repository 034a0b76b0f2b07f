package setup

import (
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon"
)

// reloadCmd takes the global options only.
type reloadCmd struct{}

// reload signals the daemon of the server the globals name to re-read its
// config and manifests (SIGHUP). The daemon is found by its lock file,
// keyed by the server's #{socket_path}; with none holding it (tma has no
// daemon yet, so today there never is one) it is a clean no-op, exit 0:
// one-shot surfaces and the picker re-read on their own.
func (r *run) reload() int {
	var c = r.g.Tmux(r.e, nil)
	if l, err := r.g.Load(common.Quiet(r.e)); err == nil {
		c = r.g.Tmux(r.e, l.Config)
	}
	server := common.SocketDescription(r.e, c.Target)
	out, _, err := c.Run(common.Background(), "", "display-message", "-p", "#{socket_path}")
	if s := strings.TrimSpace(out); err == nil && s != "" {
		server = s
	}
	p := daemon.For(server)
	d, err := daemon.Find(p)
	if err != nil {
		r.e.Errorf("daemon lock %s: %v", p.Lock, err)
		return common.ExitFail
	}
	if d == nil {
		r.out("tma: no daemon running for this server (nothing to reload; one-shots and the picker reload on their own)")
		return common.ExitOK
	}
	if err := d.Reload(); err != nil {
		r.e.Errorf("signalling the daemon (pid %d): %v", d.PID, err)
		return common.ExitFail
	}
	r.out("tma: reloaded the daemon's config + manifests")
	return common.ExitOK
}
