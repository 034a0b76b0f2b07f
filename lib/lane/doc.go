// Package lane is the claude hook reply lane's store: the record of the call
// a held PermissionRequest hook waits on, the verdict tma act hands it, and
// the decision object the hook prints for claude, as 0600 files in tma's
// private runtime directory. It runs no program and talks to no tmux.
package lane
