// Package servecmd is the tma-serve command, `tma serve --stdio --device <ID>`:
// it wires lib/serve's connection to this host's in-process cycle
// (lib/fleet), the act broker (tma-act's own entry point, called in this
// process) and the dispatch ledger; and the client ends that hold a
// connection (`tma act --host`, `tma wait --host`, hidden commands the
// dispatcher routes to). docs/serve.md says why it is a binary of its own.
package servecmd
