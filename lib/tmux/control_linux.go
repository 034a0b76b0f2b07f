package tmux

import (
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent ends a control client when the follower that started it
// dies, however it dies (a SIGPIPE exit included). A control client left
// behind would hold its server open: tmux's kill-server waits for every
// client to leave, and an orphaned control client writing into a dead pipe
// does not.
//
// Only `tmux -C` clients are processes (tma's own client lives in the
// follower), and only on a tmux newer than ControlFor's table, which has
// 3.7's fix. The signal is still SIGTERM, never SIGKILL: before 3.7 a
// control client that died after telling the server it is one but before
// the server had set it up crashed the server (server_client_lost calls
// control_stop on a NULL control_state; architecture.md). On SIGTERM the
// client exits through its own loop, which only runs once its identify
// messages are all written.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// stopClient asks a control client to go the way dieWithParent does.
func stopClient(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }
