package filestate

import (
	"os"
	"slices"
	"strings"
	"syscall"
)

// Dir is a directory whose entries named *Suffix are watched along with it.
type Dir struct {
	Path   string
	Suffix string
}

// Snapshot is what stat said about some files and directories at one
// moment. The zero Snapshot equals no snapshot taken.
type Snapshot struct {
	entries []entry
}

// entry is one path's stat; a path that could not be stat'ed has ok false.
type entry struct {
	path     string
	ok       bool
	dev, ino uint64
	size     int64
	mtime    int64 // nanoseconds
	mode     os.FileMode
}

// Take stats each file, then lists each directory and stats its entries
// that end in the directory's suffix. A file that is missing, or cannot be
// stat'ed, is recorded as such, so its appearance is a change too. The
// directory's own mtime is not part of it: editors create and remove swap
// files beside what they edit, and dotfiles are skipped for the same
// reason; the listing alone shows a watched file added or removed.
func Take(files []string, dirs ...Dir) Snapshot {
	var s Snapshot
	for _, f := range files {
		s.entries = append(s.entries, stat(f))
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(d.Path)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if n := e.Name(); strings.HasSuffix(n, d.Suffix) && !strings.HasPrefix(n, ".") {
				s.entries = append(s.entries, stat(d.Path+string(os.PathSeparator)+n))
			}
		}
	}
	return s
}

func stat(p string) entry {
	fi, err := os.Stat(p)
	if err != nil {
		return entry{path: p}
	}
	e := entry{path: p, ok: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.dev, e.ino = uint64(st.Dev), st.Ino
	}
	return e
}

// Equal reports whether the two snapshots saw the same paths in the same
// state: no file written, replaced, added or removed in between.
func (s Snapshot) Equal(o Snapshot) bool { return slices.Equal(s.entries, o.entries) }
