//go:build !linux

package tmux

import "os/exec"

// dieWithParent has no portable form outside Linux; the control client ends
// when its stdin (held by the follower) closes.
func dieWithParent(cmd *exec.Cmd) {}
