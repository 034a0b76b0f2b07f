// Package bininstall installs tma's own files (the dispatcher, the tma-*
// tools, the pinned fzf) into a bin directory, keeps the record of what it
// installed, and finds the daemons an install left running an old build.
//
// The rule: an install never leaves a mix of two builds and never writes
// into a running binary. Every file is first written whole beside its final
// name (a dot-named temp file in the same directory, fsynced, its mode
// set); only when all of them are written is each renamed over its name.
// A rename replaces the directory entry, not the file a running process
// executes, so a daemon or a hook running the old file keeps it (no "Text
// file busy") until its next start; a failed write removes the temp files
// and replaces nothing.
//
// The record (installed-files.toml in tma's config dir) names, per bin
// directory, the files the install put there and whether the fzf there is
// the one tma installed, so `tma uninstall` removes exactly those.
package bininstall
