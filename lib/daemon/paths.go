package daemon

import (
	"github.com/tmaproject/tma/lib/daemon/daemonpath"
	"github.com/tmaproject/tma/lib/tmux"
)

// Paths are where the daemon of one tmux server lives (see daemonpath).
type Paths = daemonpath.Paths

// Dir is the daemon's runtime directory (see daemonpath.Dir).
func Dir(getenv func(string) string) string { return daemonpath.Dir(getenv) }

// For returns the daemon paths of the server whose socket is server, in
// the runtime directory of this process's environment.
func For(server string) Paths { return daemonpath.For(server) }

// ForEnv is For with an explicit environment.
func ForEnv(server string, getenv func(string) string) Paths {
	return daemonpath.ForEnv(server, getenv)
}

// ServerPath is the #{socket_path} of the server t names, worked out
// without asking tmux (see daemonpath.ServerPath).
func ServerPath(t tmux.Target, getenv func(string) string) string {
	return daemonpath.ServerPath(t.SocketName, t.SocketPath, getenv)
}
