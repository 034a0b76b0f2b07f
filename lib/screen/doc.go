// Package screen turns a raw pane capture into the plain text and regions that screen rules
// read; it is pure: no I/O, no clock, no tmux.
package screen
