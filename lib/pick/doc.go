// Package pick finds and executes fzf (never linked) for the picker, execs
// tmux for `tma attach`, and starts the dispatcher's `act --menu` for
// watch's `a` key; these are the only programs it runs.
package pick
