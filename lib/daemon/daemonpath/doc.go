// Package daemonpath is where a tmux server's daemon lives (its socket,
// lock, log), worked out from the server's socket and the environment
// alone. It imports nothing of tma's, so the hook's batch started from an
// init function (lib/tmux/prebatch) can tell a running daemon apart before
// the rest of the program is initialized; lib/daemon re-exports it.
package daemonpath
