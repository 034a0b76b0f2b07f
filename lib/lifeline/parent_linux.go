package lifeline

import "golang.org/x/sys/unix"

// armParentDeath asks the kernel for SIGTERM when the parent dies. The
// setting belongs to the calling thread, and the kernel checks every thread
// of the process; Go ends a thread only when a goroutine exits while locked
// to it, which the stages never do.
func armParentDeath() bool {
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0) == nil
}
