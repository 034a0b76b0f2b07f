// Package listcall is a cycle's list call: the one tmux command line that
// reads the server, every window, client and pane with tma's options, and
// a way to start it (and a hook's `source-file -` write client) before the
// program that needs it has finished starting.
//
// The rule: this package imports standard packages and lib/tmux/spawn
// only, none with a costly init (tests/boundary holds it to that), because packages prelist and prebatch call Prestart and
// PrestartBatch from an init function that Go runs as soon as the standard
// packages below it are ready, while the rest of the program (kong, toml,
// the manifests) still waits to be initialized. Everything that decides
// what a call asks (the fields, the words that name the server, the
// binary) lives here once, and lib/tmux builds its own calls from it, so
// the call started early and the call lib/tmux would start are the same
// argv or the early one is not taken. The fork itself is lib/tmux/spawn's,
// the one way tma runs a tmux call.
package listcall
