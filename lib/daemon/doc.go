// Package daemon finds a tmux server's tier-3 daemon by the paths it would
// hold (its socket and its single-instance lock file) and signals it; it
// never starts one (the daemon itself is not built yet).
package daemon
