// Package buildinfo says which build of tma is running: the version the
// build set with -ldflags, and what the Go toolchain recorded in the
// binary (the commit and its time when built in a git checkout, the module
// version under go install, the Go version and platform). It reads only
// the running binary; it runs nothing.
package buildinfo
