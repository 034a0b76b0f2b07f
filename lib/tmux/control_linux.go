package tmux

import (
	"os/exec"
	"syscall"
)

// dieWithParent ends a control client when the follower that started it
// dies, however it dies (a SIGPIPE exit included). A control client left
// behind would hold its server open: tmux's kill-server waits for every
// client to leave, and an orphaned control client writing into a dead pipe
// does not.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
