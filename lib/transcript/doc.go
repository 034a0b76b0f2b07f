// Package transcript reads an agent's own transcript store and answers
// with pages of events in one vocabulary, whatever the store: what
// `tma transcript` prints (docs/transcript.md).
//
// The rule: read only, bounded, and typed. Nothing here writes to a store,
// follows a symlink out of one, or reads more than the budgets allow in one
// call (1 MiB from disk, 32 KiB of event headers, 256 bytes per header
// string); a record no adapter knows becomes an `unknown` event and never
// fails the read; anything that stops a page is a Refusal with one of the
// manual's codes, never a panic. The JSONL stores (claude, codex, gemini,
// pi) are read backwards from the end, so the first page of a 50 MB file
// costs what the first page of a 4 KiB one does. Each store's adapter is
// its own file and only turns one record into events; paging, cursors and
// budgets are shared.
//
// OpenCode's store is a SQLite database, read through modernc.org/sqlite
// (pure Go: CGO_ENABLED=0 builds keep working) opened read-only and never
// checkpointed. That driver is why this package has a binary of its own
// (cmd/tma-transcript): linked into tma-view it would lengthen the start-up
// of every `tma status` a status line runs. Built with the noopencode
// tag, the package links no driver and refuses OpenCode panes
// (unsupported-store).
//
// Tmux is never run here: the caller hands in the pane's options (read
// through lib/tmux in one call).
package transcript
