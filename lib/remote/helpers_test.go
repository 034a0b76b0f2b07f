package remote

import "syscall"

func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is dead for this purpose.
	var st syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &st, syscall.WNOHANG, nil)
	return syscall.Kill(pid, 0) == nil
}
