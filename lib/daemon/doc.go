// Package daemon is what every process needs to know about a tmux server's
// tier-3 daemon without being it: where it lives (its socket, its flock'd
// lock file, its log, keyed by the server's #{socket_path}), how to find it
// and signal it, the wire protocol spoken over its socket with a deadline on
// every call, and the transitions ring it keeps. It runs no programs; the
// resident process itself is lib/daemon/serve.
package daemon
