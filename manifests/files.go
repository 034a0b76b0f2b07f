package manifests

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// File is one <stem>.toml manifest file, agent or action alike.
type File struct {
	Stem string
	Path string // how errors name it: "bundled:<name>" or the file's path
	Data []byte
	Err  error // reading it failed (a user file; a bundled one cannot)
}

// Bundled lists the embedded files of dir ("agents" or "actions") in name
// order.
func Bundled(fsys fs.FS, dir string) ([]File, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range entries {
		stem, ok := Stem(e)
		if !ok {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, File{Stem: stem, Path: "bundled:" + e.Name(), Data: data})
	}
	return out, nil
}

// Dir lists a user directory's <stem>.toml files in name order; dotfiles and
// subdirectories are not manifests. The error is the directory's own
// (fs.ErrNotExist when it is missing); a file that cannot be read carries
// its error in File.Err.
func Dir(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range entries {
		stem, ok := Stem(e)
		if !ok {
			continue
		}
		f := File{Stem: stem, Path: filepath.Join(dir, e.Name())}
		f.Data, f.Err = os.ReadFile(f.Path)
		out = append(out, f)
	}
	return out, nil
}

// Stem is the agent or action name a directory entry's file defines: a
// <stem>.toml file that is neither a dotfile nor a directory.
func Stem(e fs.DirEntry) (string, bool) {
	stem, ok := strings.CutSuffix(e.Name(), ".toml")
	return stem, ok && stem != "" && !e.IsDir() && !strings.HasPrefix(e.Name(), ".")
}

// Problem is a user manifest file that was skipped, with the reason (which
// names the file and the field).
type Problem struct {
	File string
	Err  error
}

func (p Problem) String() string { return p.Err.Error() }

// ParseBundled parses every bundled file; a broken one is an error (a build
// bug, caught by the unit tests).
func ParseBundled[T any](fsys fs.FS, dir string, parse func(File) (T, error)) ([]T, error) {
	files, err := Bundled(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, f := range files {
		v, err := parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseEach parses the files of a user directory: the ones that read and
// parse, and a Problem for each that does not.
func ParseEach[T any](files []File, parse func(File) (T, error)) ([]T, []Problem) {
	var out []T
	var probs []Problem
	for _, f := range files {
		if f.Err != nil {
			probs = append(probs, Problem{File: f.Path, Err: f.Err})
			continue
		}
		v, err := parse(f)
		if err != nil {
			probs = append(probs, Problem{File: f.Path, Err: err})
			continue
		}
		out = append(out, v)
	}
	return out, probs
}
