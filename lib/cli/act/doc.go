// Package act is the tma-act command: `tma act <name>` fires a guarded
// action into an agent pane (gate, single-flight lock, re-read and re-gate
// under the lock, dispatch, release), `--list` enumerates the actions and
// `--menu` hands tmux a menu of the ones fireable on a pane right now.
package act
