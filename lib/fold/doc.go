// Package fold turns one pane's observation into a verdict; it is pure: no
// clock (time travels in the record), no I/O, no tmux.
package fold
