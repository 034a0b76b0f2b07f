// Package apply runs one hook event's writes against tmux: the blind
// one-spawn plan, and the listed path when the plan needs the pane list or
// the pane belongs to another session. tma-hook and the daemon share it, so
// an event lands the same way whichever of them commits it.
package apply
