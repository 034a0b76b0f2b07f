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
// The signal is SIGTERM, never SIGKILL: a control client that dies after
// telling the server it is one but before the server has set it up
// crashes every released tmux server (server_client_lost calls
// control_stop on a NULL control_state; the three segfaults at one
// address in architecture.md). On SIGTERM the client exits through its
// own loop, which only runs once its identify messages are all written,
// or, earlier, by the default action before it has connected.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// stopClient asks a control client to go the way dieWithParent does.
func stopClient(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }
