// Package tomledit edits one top-level key of a TOML document in place: it
// finds, inserts, replaces or deletes that key's whole statement and leaves
// every other byte (comments, order, tables) untouched.
package tomledit
