// Package arrival decides which attention marks a focus change clears: the
// pane arrived at and, by hook kind, the pane just left, unless the move was
// a `tma jump --next`, which leaves every mark as it was. It runs nothing.
package arrival
