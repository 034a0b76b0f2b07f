// Package install wires agent configs to the tma-hook wrapper and tmux to
// tma's attention clears: it computes every change as a whole-file before and
// after (so the caller can show a diff and ask), never writes a byte outside
// the span tma owns, and writes files atomically. The tmux keybindings
// (keys.go) run tma by its absolute path and name every user binding they
// replace, read from the server's list-keys or the user's bind lines.
package install
