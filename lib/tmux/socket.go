package tmux

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// socketPath is where the target's server listens, as tmux itself resolves
// it: -S as given, else $TMUX_TMPDIR (or /tmp)/tmux-UID/NAME.
func socketPath(t Target, getenv func(string) string) string {
	if t.SocketPath != "" {
		return t.SocketPath
	}
	name := t.SocketName
	if name == "" {
		name = "default"
	}
	dir := getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// serverListens reports whether something accepts connections on the
// target's socket. A tmux client that says "server exited unexpectedly"
// while a server still listens there was dropped, not orphaned: the server
// could not read its messages, which is a client built from another
// release (tmux 3.6 changed the message header without changing the
// protocol number, so neither side names the mismatch). A server that
// really died refuses the connection.
func serverListens(t Target, getenv func(string) string) bool {
	c, err := net.DialTimeout("unix", socketPath(t, getenv), 200*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
