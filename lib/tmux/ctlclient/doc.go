// Package ctlclient is a tmux control-mode client that lives in the
// follower's own process: it speaks tmux's client protocol (version 8)
// over the server's socket and hands the server two pipes as the client's
// stdin and stdout, so commands go down one and %begin/%end blocks come
// back up the other, as with `tmux -C`.
//
// It exists for one reason. Every tmux release before 3.7 marks a client
// as a control client when it reads IDENTIFY_FLAGS but builds its control
// state only at IDENTIFY_DONE, and a client lost, or a notification
// broadcast, in between crashes the server (architecture.md). tmux's own
// client sends FLAGS first and its descriptors in writes of their own, so
// the server reads its identify over several turns of its event loop. This
// client sends the two descriptors first and everything else, FLAGS last
// before DONE and the command, in one write that the server reads and
// dispatches in one go: there is no turn of the loop in which it is a
// half-identified control client.
//
// The rule: nothing here may send the server a message it could misread.
// The header format is chosen by the caller from the server's version
// (tmux 3.6 changed how a message says it carries a descriptor), and a
// version this package does not know is refused, never guessed.
package ctlclient
