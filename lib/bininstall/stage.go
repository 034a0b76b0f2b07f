package bininstall

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Source is one file to install: Name in the bin directory, its bytes read
// from From (a path) or given as Data.
type Source struct {
	Name string
	From string
	Data []byte
	Mode fs.FileMode // default 0755
}

// Staged is an install written beside its final names, not yet renamed.
type Staged struct {
	Dir   string
	names []string
	temps []string
}

// Stage writes every source into dir beside its final name. On any error
// the temp files written so far are removed and nothing in dir is replaced.
func Stage(dir string, srcs []Source) (*Staged, error) {
	s := &Staged{Dir: dir}
	for _, src := range srcs {
		if src.Name == "" || filepath.Base(src.Name) != src.Name {
			s.Abort()
			return nil, fmt.Errorf("%q is not a file name", src.Name)
		}
		tmp, err := s.write(src)
		if err != nil {
			s.Abort()
			return nil, err
		}
		s.names = append(s.names, src.Name)
		s.temps = append(s.temps, tmp)
	}
	return s, nil
}

func (s *Staged) write(src Source) (string, error) {
	mode := src.Mode
	if mode == 0 {
		mode = 0o755
	}
	var r io.Reader
	if src.From != "" {
		f, err := os.Open(src.From)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", src.From)
		}
		r = f
	} else {
		if src.Data == nil {
			return "", fmt.Errorf("%s: nothing to install", src.Name)
		}
		r = bytes.NewReader(src.Data)
	}
	out, err := os.CreateTemp(s.Dir, "."+src.Name+".tma-new-*")
	if err != nil {
		return "", err
	}
	tmp := out.Name()
	fail := func(err error) (string, error) {
		out.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("writing %s: %w", filepath.Join(s.Dir, src.Name), err)
	}
	if err := out.Chmod(mode); err != nil {
		return fail(err)
	}
	if _, err := io.Copy(out, r); err != nil {
		return fail(err)
	}
	if err := out.Sync(); err != nil {
		return fail(err)
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// Names are the staged files' final names, in order.
func (s *Staged) Names() []string { return append([]string(nil), s.names...) }

// Commit renames every staged file over its name. A rename that fails
// (rare: the files are in one directory) stops there and says which names
// were already replaced; the temp files not renamed are removed.
func (s *Staged) Commit() error {
	for i, tmp := range s.temps {
		if err := os.Rename(tmp, filepath.Join(s.Dir, s.names[i])); err != nil {
			for _, t := range s.temps[i:] {
				os.Remove(t)
			}
			return fmt.Errorf("renaming into %s: %w (replaced before it: %v)", filepath.Join(s.Dir, s.names[i]), err, s.names[:i])
		}
	}
	s.temps = nil
	return nil
}

// Abort removes every staged temp file.
func (s *Staged) Abort() {
	for _, t := range s.temps {
		_ = os.Remove(t)
	}
	s.temps = nil
}

// OnPath reports whether dir is one of PATH's directories (by the same
// file, so a symlinked or spelt-differently entry counts).
func OnPath(dir, path string) bool {
	want, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			continue
		}
		if st, err := os.Stat(d); err == nil && os.SameFile(st, want) {
			return true
		}
	}
	return false
}
