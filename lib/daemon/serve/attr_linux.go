package serve

import (
	"os/exec"
	"syscall"
)

// stageAttr ends a stage when the daemon dies, however it dies: a stage
// left behind would poll tmux for nobody.
func stageAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
