// Package servecmd is the tma-serve command, `tma serve --stdio --device <ID>`:
// it wires lib/serve's connection to this host's in-process cycle
// (lib/fleet), the act broker (tma-act's own entry point, called in this
// process) and the dispatch ledger. docs/serve.md says why it is a binary
// of its own.
package servecmd
