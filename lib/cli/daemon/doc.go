// Package daemoncmd is the tma-daemon command: `tma daemon` (the daemon in the
// foreground, --ensure, --restart) and `tma debug transitions`. It parses
// flags, resolves the server and wires lib/daemon/serve.
package daemoncmd
