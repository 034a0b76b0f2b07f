// Package telemetry reads an agent's own report of its context window (a
// statusline payload, a rollout's token_count record, an extension's
// context usage) into one Reading, and plans the guarded pane writes that
// stamp it: a reading dated before the one a pane holds writes nothing.
// The parsers are pure; the only I/O is the bounded tail read of a rollout
// file, and it runs no tmux.
package telemetry
