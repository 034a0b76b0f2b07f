package daemonpath

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStatusRunMark: every mark moves the .status file's mtime to that
// run's time (issue 27 item 23: doctor read a mark written every 30 s), the
// first one creating the file (0600) and its directory (0700); an unmarked
// server reads 0.
func TestStatusRunMark(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tma")
	p := ForEnv("/tmp/tmux-1/default", func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return filepath.Dir(dir)
		}
		return ""
	})
	if p.StatusRun != filepath.Join(dir, filepath.Base(p.Lock[:len(p.Lock)-len(".lock")])+".status") {
		t.Fatalf("StatusRun = %s beside %s", p.StatusRun, p.Lock)
	}
	if at := StatusRunAt(p.StatusRun); at != 0 {
		t.Fatalf("unmarked: %d", at)
	}
	first := time.UnixMilli(1_700_000_000_000)
	if err := MarkStatusRun(p.StatusRun, first); err != nil {
		t.Fatal(err)
	}
	if at := StatusRunAt(p.StatusRun); at != first.UnixMilli() {
		t.Errorf("after the first mark: %d, want %d", at, first.UnixMilli())
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, p.StatusRun: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode() != want {
			t.Errorf("%s: %v %v, want %v", path, st.Mode(), err, want)
		}
	}
	// Five seconds later: exactly then, not within some cadence.
	next := first.Add(5 * time.Second)
	if err := MarkStatusRun(p.StatusRun, next); err != nil {
		t.Fatal(err)
	}
	if at := StatusRunAt(p.StatusRun); at != next.UnixMilli() {
		t.Errorf("after a second mark 5 s on: %d, want %d", at, next.UnixMilli())
	}
}
