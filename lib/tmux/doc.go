// Package tmux is the only package that runs tmux: it picks the server and
// the binary, bounds every call with a timeout, turns tmux's terse failures
// into distinct errors, and batches a cycle into a constant number of spawns.
// Its subpackage spawn runs every one-shot call (a fork with no os/exec
// probe); listcall holds the cycle's list call, which tma-scan's prelist
// starts before the program is initialized and this package takes over.
// Nothing else spawns tmux.
package tmux
