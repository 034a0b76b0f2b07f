// Package manifest parses agent manifests strictly and evaluates their screen rules; it is
// pure: it reads files only through Load, never runs a program and never talks to tmux.
package manifest
