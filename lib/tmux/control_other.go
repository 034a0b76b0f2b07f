//go:build !linux

package tmux

import (
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent has no portable form outside Linux; the control client ends
// when its stdin (held by the follower) closes.
func dieWithParent(cmd *exec.Cmd) {}

// stopClient asks a control client to go (see control_linux.go).
func stopClient(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }
