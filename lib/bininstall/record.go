package bininstall

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/tmaproject/tma/lib/atomicfile"
	"github.com/tmaproject/tma/lib/statefile"
)

// RecordName is the record's file name in tma's config dir.
const RecordName = "installed-files.toml"

// Record is what installs put where: one entry per bin directory.
type Record struct {
	Version  int        `toml:"version"`
	Installs []*Install `toml:"install,omitempty"`
}

// Install is one bin directory's install.
type Install struct {
	BinDir string   `toml:"bindir"`
	Files  []string `toml:"files"`
	// Fzf: the fzf in BinDir is the one tma installed (uninstall removes
	// it); false when it was there already and new enough, so the user's.
	Fzf bool `toml:"fzf"`
	// Created is the topmost directory the install made to hold BinDir
	// ("" when BinDir existed): uninstall removes the empty ones up to it.
	Created     string    `toml:"created,omitempty"`
	InstalledAt time.Time `toml:"installed_at"`
}

const recordHeader = "# tma's installed files: what make install (and tma-setup install-dispatcher)\n" +
	"# put in each bin directory, for `tma uninstall`. Written by tma. Do not edit.\n"

// LoadRecord reads the record; a missing one is empty.
func LoadRecord(path string) (*Record, error) {
	r := &Record{Version: 1}
	if _, err := statefile.Load(path, r); err != nil {
		return nil, err
	}
	if r.Version != 1 {
		return nil, errors.New(path + ": version " + strconv.Itoa(r.Version) + " is not one this tma reads (1)")
	}
	return r, nil
}

// For is the entry for bindir, nil when none.
func (r *Record) For(bindir string) *Install {
	for _, in := range r.Installs {
		if sameDir(in.BinDir, bindir) {
			return in
		}
	}
	return nil
}

// Ensure is the entry for bindir, added when missing.
func (r *Record) Ensure(bindir string) *Install {
	if in := r.For(bindir); in != nil {
		return in
	}
	in := &Install{BinDir: bindir}
	r.Installs = append(r.Installs, in)
	return in
}

// Forget drops bindir's entry.
func (r *Record) Forget(bindir string) {
	var keep []*Install
	for _, in := range r.Installs {
		if !sameDir(in.BinDir, bindir) {
			keep = append(keep, in)
		}
	}
	r.Installs = keep
}

// Add records names as installed in the entry (kept sorted, once each).
func (in *Install) Add(names ...string) {
	seen := map[string]bool{}
	for _, n := range in.Files {
		seen[n] = true
	}
	for _, n := range names {
		if !seen[n] {
			in.Files = append(in.Files, n)
			seen[n] = true
		}
	}
	sort.Strings(in.Files)
}

// Save writes the record (0600, atomically, its directory made 0700 when
// missing); an empty record removes the file instead.
func (r *Record) Save(path string) error {
	if len(r.Installs) == 0 {
		err := os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	r.Version = 1
	sort.Slice(r.Installs, func(i, j int) bool { return r.Installs[i].BinDir < r.Installs[j].BinDir })
	data, err := statefile.Encode(recordHeader, r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// sameDir: the same path, or the same directory on disk.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// Tools are the tma-* programs an install puts beside the dispatcher (the
// commands under cmd/; the Makefile's TOOLS): what uninstall removes from a
// bin directory no record names.
var Tools = []string{"tma-act", "tma-daemon", "tma-fold", "tma-hook", "tma-notify", "tma-pick", "tma-scan", "tma-serve", "tma-setup", "tma-stamp", "tma-transcript", "tma-view", "tma-wait"}
