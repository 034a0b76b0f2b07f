package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/bininstall"
)

// With no install record (an install older than the
// record), uninstall removes tma and the tma-* tools it finds and leaves an
// fzf, which may be the user's; with a record, exactly the files it names,
// and an fzf only when tma installed it (issue 29 item 8).
func TestUninstallFilesByRecord(t *testing.T) {
	h := newHome(t)
	bindir := filepath.Join(t.TempDir(), "bin")
	for _, n := range []string{"tma", "tma-hook", "tma-view", "fzf", "mytool"} {
		writeExec(t, filepath.Join(bindir, n))
	}
	r := tma(t, "uninstall", "--yes", "--bindir", bindir)
	must(t, r, 0, "its fzf may be yours, so it stays", "removed 3 files")
	for n, want := range map[string]bool{"tma": false, "tma-hook": false, "tma-view": false, "fzf": true, "mytool": true} {
		if _, err := os.Stat(filepath.Join(bindir, n)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", n, err == nil, want)
		}
	}

	// A record naming tma and its fzf as the user's: the fzf stays; the
	// directory the install made goes once empty, and so does the record.
	top := filepath.Join(t.TempDir(), "prefix")
	bindir = filepath.Join(top, "bin")
	for _, n := range []string{"tma", "tma-setup", "fzf"} {
		writeExec(t, filepath.Join(bindir, n))
	}
	recPath := filepath.Join(h.Dir, ".config", "tma", bininstall.RecordName)
	rec := &bininstall.Record{}
	in := rec.Ensure(bindir)
	in.Add("tma", "tma-setup")
	in.Created, in.InstalledAt = top, time.Now()
	if err := rec.Save(recPath); err != nil {
		t.Fatal(err)
	}
	must(t, tma(t, "uninstall", "--yes", "--bindir", bindir), 0, "removed 2 files")
	if _, err := os.Stat(filepath.Join(bindir, "fzf")); err != nil {
		t.Errorf("the user's fzf was removed: %v", err)
	}
	if _, err := os.Stat(recPath); !os.IsNotExist(err) {
		t.Errorf("the emptied record is left: %v", err)
	}

	// Recorded as tma's: the fzf goes, and the directories the install made.
	writeExec(t, filepath.Join(bindir, "tma"))
	rec = &bininstall.Record{}
	in = rec.Ensure(bindir)
	in.Add("tma", "fzf")
	in.Fzf, in.Created = true, top
	if err := rec.Save(recPath); err != nil {
		t.Fatal(err)
	}
	must(t, tma(t, "uninstall", "--yes", "--bindir", bindir), 0, "removed 2 files")
	if _, err := os.Stat(top); !os.IsNotExist(err) {
		t.Errorf("the directory the install made is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.Dir, ".config", "tma")); !os.IsNotExist(err) {
		t.Errorf("tma's emptied config dir is left: %v", err)
	}
}
