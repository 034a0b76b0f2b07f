// Package daemon is what every process needs to know about a tmux server's
// tier-3 daemon without being it: where it lives (its socket, its flock'd
// lock file, its log, keyed by the server's #{socket_path}), how to find it
// and signal it, the wire protocol spoken over its socket with a deadline on
// every call, the transitions ring it keeps, and the upgrade rule. It runs
// one program, a detached tma-daemon when a hot path must start or replace
// one without waiting; the resident process itself is lib/daemon/serve.
package daemon
