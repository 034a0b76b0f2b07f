// Package scancmd is the tma-scan command: observe one cycle and emit it as
// NDJSON records.
package scancmd
