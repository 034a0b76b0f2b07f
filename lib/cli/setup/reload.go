package setupcmd

import (
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon"
)

// reloadCmd takes the global options only.
type reloadCmd struct{}

// reload signals the daemon of the server the globals name to re-read its
// config and manifests (SIGHUP). The daemon is found by its lock file,
// keyed by the server's #{socket_path}; with none holding it it is a
// clean no-op, exit 0: one-shot surfaces and the picker re-read
// on their own. A daemon that fails to load the files keeps its pair and
// says so: exit 1, naming the failure.
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
	p := daemon.ForEnv(server, r.e.Getenv)
	d, err := daemon.Find(p)
	if err != nil {
		r.e.Errorf("daemon lock %s: %v", p.Lock, err)
		return common.ExitFail
	}
	if d == nil {
		r.out("tma: no daemon running for this server (nothing to reload; one-shots and the picker reload on their own)")
		return common.ExitOK
	}
	sent := time.Now().UnixMilli()
	if err := d.Reload(); err != nil {
		r.e.Errorf("signalling the daemon (pid %d): %v", d.PID, err)
		return common.ExitFail
	}
	// The daemon reports the reload it did; one that does not answer (an
	// older build, or one between its start and its socket) got the signal.
	for deadline := time.Now().Add(ReloadWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		h, err := daemon.Ask(p, 250*time.Millisecond)
		if err != nil || h == nil {
			break
		}
		if h.ReloadMS >= sent {
			if h.ReloadError != "" {
				r.e.Errorf("the daemon kept its previous config and manifests: %s\nhint: fix the file and run `tma reload` again (the daemon's log: %s)", h.ReloadError, p.Log)
				return common.ExitFail
			}
			break
		}
	}
	r.out("tma: reloaded the daemon's config + manifests")
	return common.ExitOK
}

// ReloadWait bounds how long reload waits for the daemon to report the
// reload it did.
const ReloadWait = 2 * time.Second
