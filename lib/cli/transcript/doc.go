// Package transcriptcmd is tma-transcript's command line: `tma transcript`'s
// flags (their grammar is the grammar subpackage), the pane's options read
// through lib/tmux in one call, and the page lib/transcript serves printed
// as text or as its JSON document. It parses and wires; reading the
// stores is lib/transcript's.
//
// It is a binary of its own because lib/transcript links a SQLite driver
// for OpenCode's store, and the tools a status line runs every few
// seconds (tma-view) should not pay for loading it.
package transcriptcmd
