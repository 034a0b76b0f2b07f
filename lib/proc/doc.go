// Package proc reads the process table once per cycle (/proc on Linux, one
// ps run elsewhere) and answers tree questions about a pane's processes.
package proc
