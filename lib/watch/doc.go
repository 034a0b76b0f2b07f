// Package watch is tma watch's model, and it is pure: the agent rows both
// surfaces draw (the picker's fzf lines are watch's list lines), watch's
// body (the list or the table, grouped by repo or flat), the frame drawn
// from it (exactly rows × cols, the preview clipped beside the list), and
// what each key and mouse report does to the selection and the toggles.
// It never touches a terminal, tmux or a clock: lib/cli/pick feeds it
// cycles, sizes, events and captured screens, and runs the actions it
// names (a jump, the action menu, a quit).
package watch
