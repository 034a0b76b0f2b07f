// Package actcmd is the tma-act command: it parses `tma act`, `tma mute`,
// `tma receipts` and the internal `supervise`, checks the usage errors that
// need no config and no tmux, loads config, manifests and actions, and
// hands a lib/act/broker.Broker the rest (fire, --list, --menu).
package actcmd
