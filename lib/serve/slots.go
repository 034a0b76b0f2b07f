package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Claim takes one of max connection slots in dir: a lock file per slot,
// held by an exclusive flock for the life of the process, so a slot frees
// itself when its holder dies however it dies. ok is false when every slot
// is held.
func Claim(dir string, max int) (release func(), ok bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, err
	}
	for i := range max {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("serve-%d.lock", i)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, false, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		return func() { f.Close() }, true, nil
	}
	return nil, false, nil
}
