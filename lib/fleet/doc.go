// Package fleet runs one full tma cycle in-process (scan, fold, stamp,
// commit) and returns the agent rows in attention order: the one place the
// picker, jump and watch drive the cycle from, so every surface is a driver.
package fleet
