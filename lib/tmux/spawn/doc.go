// Package spawn runs one tmux process to its end: it forks the binary with
// its stdio on pipes, hands it its stdin, drains what it prints and reaps
// it, killing it when the caller's context ends. Every one-shot tmux call
// of tma goes through it: lib/tmux's calls, and the list and write
// client that listcall starts from an init function.
//
// The rule: it forks with syscall.ForkExec and imports nothing but
// standard packages with no costly init. os/exec's first start in a
// process probes pidfd support by forking a child of its own (a third of a
// millisecond on a 2-vCPU machine), and a status line or an agent's hook
// pays that on every run; listcall's init may run this before the rest of
// the program is initialized. A control-mode client, which lives as long
// as its connection, is lib/tmux's own and stays on os/exec.
package spawn
