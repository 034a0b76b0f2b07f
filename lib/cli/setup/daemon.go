package setupcmd

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/daemon"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/doctor"
)

// daemonOf is what doctor, init and install-hooks know about the server's
// daemon: who holds its lock (and the version written there) and, when it
// answers, what it says of itself.
type daemonView struct {
	paths   daemon.Paths
	running *daemon.Running
	hello   *daemon.Hello
}

func (r *run) daemonOf(server string) *daemonView {
	v := &daemonView{paths: daemon.ForEnv(server, r.e.Getenv)}
	v.running, _ = daemon.Find(v.paths)
	if v.running != nil {
		v.hello, _ = daemon.Ask(v.paths, time.Second)
	}
	return v
}

func (v *daemonView) up() bool { return v.running != nil }

// skewed: a daemon of another build than this CLI.
func (v *daemonView) skewed() bool { return v.running != nil && v.running.Version != common.Version }

// facts is the daemon as doctor judges it.
func (v *daemonView) facts() doctor.Daemon {
	d := doctor.Daemon{Up: v.up(), Socket: v.paths.Socket, CLIVersion: common.Version}
	if v.running != nil {
		d.Version = v.running.Version
	}
	if v.hello != nil {
		d.ReloadError, d.ReloadMS = v.hello.ReloadError, v.hello.ReloadMS
	}
	return d
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}

// offerRestart is init's step 5 and install-hooks' closing check: a
// running daemon of another build gets the restart offered, on the same
// confirm terms as every write; declining is not a failure.
func (r *run) offerRestart(server string) {
	v := r.daemonOf(server)
	if !v.skewed() {
		return
	}
	// "just wired" only when this run wrote hooks: a re-run that changed
	// nothing has hooks that were already reaching that build.
	reach := "every hook event reaches that build, not this one"
	if r.wired {
		reach = "the hooks just wired reach that build"
	}
	fmt.Fprintf(r.e.Stdout, "tma: the daemon running for this server is version %s, not this build (%s): %s\n", orUnknown(v.running.Version), common.Version, reach)
	if !r.ask("Restart it with this build?") {
		r.out("tma: left the running daemon as it is (`tma daemon --restart` when you are ready)")
		return
	}
	srv, err := daemoncmd.Resolve(r.e, r.g, r.config())
	if err == nil {
		var h *daemon.Hello
		if h, err = daemoncmd.Restart(r.e, r.g, srv); err == nil {
			r.out("tma: daemon restarted (%s)", h.Version)
			return
		}
	}
	r.e.Errorf("%v", err)
	r.failed = true
}

// ask is a yes/no question whose no is not a failure: --yes accepts, no
// terminal declines quietly.
func (r *run) ask(question string) bool {
	if r.h.Yes {
		return true
	}
	if !r.terminal() {
		return false
	}
	fmt.Fprintf(r.e.Stdout, "%s [y/N] ", question)
	line, _ := bufio.NewReader(r.e.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// config is the loaded config, else the defaults (a tmux binary to ask).
func (r *run) config() *config.Config {
	if r.loaded != nil {
		return r.loaded.Config
	}
	if l, err := r.g.Load(common.Quiet(r.e)); err == nil {
		return l.Config
	}
	return config.Default()
}

// startDaemon is init --daemon: what `tma daemon --ensure` does.
func (r *run) startDaemon() {
	srv, err := daemoncmd.Resolve(r.e, r.g, r.config())
	if err == nil {
		var h *daemon.Hello
		if h, err = daemoncmd.Ensure(r.e, r.g, r.config(), srv); err == nil {
			if h == nil {
				r.out("tma: a daemon is already running for this server (%s)", srv.Paths.Socket)
			} else {
				r.out("tma: started the daemon (%s, pid %d)", h.Version, h.PID)
			}
			return
		}
	}
	r.e.Errorf("--daemon: %v", err)
	r.failed = true
}

// serverSocket is the server's #{socket_path}, "" when there is no server.
func (r *run) serverSocket() string {
	srv, err := daemoncmd.Resolve(r.e, r.g, r.config())
	if err != nil {
		return ""
	}
	return srv.Socket
}
