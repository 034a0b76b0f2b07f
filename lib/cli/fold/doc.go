// Package foldcmd is the tma-fold command: a pure filter from observations to
// verdicts.
package foldcmd
