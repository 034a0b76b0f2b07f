package tmux

import "syscall"

// ServerPID is the pid of the server the client names, asked of its socket
// (SO_PEERCRED on a connection closed at once, before tmux's protocol
// starts), or 0 when that cannot be told: no socket, a server in another
// pid namespace. It is a hint: nothing may depend on it being right, so a
// follower asks once.
func (c *Client) ServerPID(getenv func(string) string) int {
	if c.serverPID == 0 {
		c.serverPID = askServerPID(c.Target, getenv)
	}
	return c.serverPID
}

func askServerPID(t Target, getenv func(string) string) int {
	path := socketPath(t, getenv)
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		return 0
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || cred.Pid <= 0 {
		return 0
	}
	return int(cred.Pid)
}
