// Package stamp plans the guarded writes that commit a cycle's verdicts and
// the rows that describe the result; it builds tmux command lines and never
// runs them (lib/tmux does).
package stamp
