package install

import (
	"github.com/tmaproject/tma/lib/atomicfile"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Change is one file's before and after. Remove deletes the file.
type Change struct {
	Path    string
	What    string // "agent hooks", "codex notify", "statusline shim", …
	Old     []byte
	Existed bool
	Mode    fs.FileMode // the file's mode, kept by the write
	New     []byte
	Remove  bool
	// Notes are said after the diff, before the question (the user
	// bindings a keys file replaces).
	Notes []string
}

// ReadFile reads a config; a missing file is not an error (existed=false).
func ReadFile(p string) (data []byte, existed bool, mode fs.FileMode, err error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, 0o600, nil
	}
	if err != nil {
		return nil, false, 0, err
	}
	if st.IsDir() {
		return nil, false, 0, fmt.Errorf("%s is a directory", p)
	}
	data, err = os.ReadFile(p)
	return data, true, st.Mode().Perm(), err
}

// Apply writes one change: atomically (a temp file in the same directory,
// renamed over the target, keeping the file's mode; new files are 0600 and
// new parent directories 0700), or removes the file.
func Apply(c Change) error {
	if c.Remove {
		err := os.Remove(c.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return WriteAtomic(c.Path, c.New, c.Mode)
}

// WriteAtomic writes data to p through a temp file and a rename.
func WriteAtomic(p string, data []byte, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o600
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// Write through a symlinked config to its target, so the link survives.
	if t, err := filepath.EvalSymlinks(p); err == nil && t != p {
		p = t
		dir = filepath.Dir(p)
	}
	return atomicfile.Write(p, data, mode)
}
