package lifeline

import (
	"os"

	"golang.org/x/sys/unix"
)

// DieWithReader makes a long-running stage end as soon as whoever reads its
// stdout is gone, instead of at its next write: a `tma wait` that returned
// must not leave its pipeline polling tmux for another interval. When the
// read end closes, one byte is written so the runtime's SIGPIPE exit (141)
// happens now. A stdout that is not a pipe is left alone.
func DieWithReader(stdout any) { DieWithReaderAfter(stdout, nil) }

// DieWithReaderAfter is DieWithReader that calls settle, when not nil,
// once the reader is gone and before the stage dies. A stage that holds
// tmux control clients uses it to let one still attaching finish first:
// the exit ends every client at once, and tmux before 3.7 crashes when a
// client goes while another is still identifying. settle bounds itself.
func DieWithReaderAfter(stdout any, settle func()) {
	f, ok := stdout.(*os.File)
	if !ok {
		return
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	go func() {
		fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: 0}}
		for {
			n, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				if settle != nil {
					settle()
				}
				_, _ = f.Write([]byte{'\n'})
				return
			}
		}
	}()
}
