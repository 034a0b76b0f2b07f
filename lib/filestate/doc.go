// Package filestate tells a long-running reader whether the files it loaded
// changed, by stat alone: a snapshot of each file's identity (device and
// inode), size and modification time, and of a directory's matching
// entries, so that a file written, replaced, added or removed makes the
// next snapshot differ. It reads no file's contents. The kernel stamps
// mtimes from a coarse clock (a few milliseconds), so a rewrite in place
// that keeps the size within one of its ticks after a snapshot shows only
// at the next change; an editor's save, seconds apart, always shows.
package filestate
