// Package gitinfo resolves the repo/branch/worktree labels of a directory
// from the files git keeps (.git, gitdir, commondir, HEAD), memoized per
// directory; a layout that reading does not know gets one bounded git call,
// and any failure degrades to no labels.
package gitinfo
