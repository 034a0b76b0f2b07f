// Package serve is `tma serve --stdio`: one remote connection, NDJSON
// frames on a pair of pipes (docs/serve.md). It owns the protocol, the
// scope table and the connection cap; what it observes and what it fires
// come in as functions (the command wires the in-process cycle and the act
// broker), so this package spawns nothing, opens no socket and never
// writes anything but frames to its output.
//
// Authorization is read from the device store on every request and every
// publish, keyed only by the --device argument sshd's forced command
// passed; nothing a frame says widens or chooses it. A dispatch is gated
// by scope before the broker is called at all, so a refused one claims no
// slot and sends no key.
package serve
