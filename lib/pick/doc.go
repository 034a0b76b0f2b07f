// Package pick finds and executes fzf (never linked) for the picker and
// watch, and execs tmux for `tma attach`; these are the only programs it
// runs.
package pick
