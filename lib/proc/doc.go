// Package proc reads processes once per cycle, only the trees under the
// panes (/proc on Linux, one ps run elsewhere), and answers tree questions
// about a pane's processes.
package proc
