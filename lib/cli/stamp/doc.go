// Package stampcmd is the tma-stamp command: commit a cycle's verdicts with
// guarded writes and emit the resulting rows.
package stampcmd
