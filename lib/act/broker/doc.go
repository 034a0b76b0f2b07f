// Package broker is the action broker's acting half: one cycle to resolve
// and gate the targets, the pane lock taken and the pane re-read and
// re-gated under it, the dispatch (keys and typed text through lib/tmux,
// the claude reply lane, OpenCode's HTTP lane, an exec child through
// lib/act/child, a detached supervisor), the repeat run and the release,
// the --slot ledger claim and receipt, the dry run, --list and --menu, and
// the act log line of each attempt; and tma mute's targets and deadline
// write (Mute). The rules it applies are lib/act's
// (pure); this package runs them against a server. It reads no flags and
// no config file: lib/cli/act builds a Broker from the command line.
package broker
