// Package gitinfo resolves the repo/branch/worktree labels of a directory
// with one bounded git call per unique directory, memoized; any failure
// degrades to no labels.
package gitinfo
