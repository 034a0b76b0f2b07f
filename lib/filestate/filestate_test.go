package filestate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChanges walks one config file and one manifest directory through the
// edits a user makes and checks which of them a new snapshot notices.
func TestChanges(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "config.toml")
	agents := filepath.Join(root, "agents")
	take := func() Snapshot { return Take([]string{cfg}, Dir{Path: agents, Suffix: ".toml"}) }
	past := time.Now().Add(-time.Hour)

	steps := []struct {
		what    string
		do      func()
		changed bool
	}{
		{"nothing happened", func() {}, false},
		{"the config file is created", func() { write(t, cfg, "[fold]\n") }, true},
		{"nothing happened since", func() {}, false},
		{"the config file is rewritten, same size, new mtime", func() {
			write(t, cfg, "[tmux]\n")
			if err := os.Chtimes(cfg, past, past); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"the config grows", func() { write(t, cfg, "[tmux]\nbin = \"tmux\"\n") }, true},
		{"the config is replaced by rename (a new inode), mtime and size kept", func() {
			fi, _ := os.Stat(cfg)
			tmp := cfg + ".new"
			b, _ := os.ReadFile(cfg)
			write(t, tmp, string(b))
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, cfg); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"the agents dir is created empty", func() {
			if err := os.Mkdir(agents, 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a manifest is added", func() { write(t, filepath.Join(agents, "mine.toml"), "x = 1\n") }, true},
		{"an editor swap file and a note appear", func() {
			write(t, filepath.Join(agents, ".mine.toml.swp"), "swap")
			write(t, filepath.Join(agents, "README.md"), "notes")
		}, false},
		{"the manifest is edited", func() { write(t, filepath.Join(agents, "mine.toml"), "x = 22\n") }, true},
		{"a second manifest is added", func() { write(t, filepath.Join(agents, "other.toml"), "y = 1\n") }, true},
		{"a manifest is removed", func() {
			if err := os.Remove(filepath.Join(agents, "mine.toml")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"the config file is removed", func() {
			if err := os.Remove(cfg); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"nothing happened at the end", func() {}, false},
	}
	prev := take()
	for _, s := range steps {
		s.do()
		next := take()
		if got := !next.Equal(prev); got != s.changed {
			t.Errorf("%s: changed = %v, want %v", s.what, got, s.changed)
		}
		prev = next
	}
}

func TestZeroSnapshotEqualsNothingWatched(t *testing.T) {
	if !Take(nil).Equal(Snapshot{}) {
		t.Error("a snapshot of nothing differs from the zero one")
	}
	if Take([]string{filepath.Join(t.TempDir(), "absent")}).Equal(Snapshot{}) {
		t.Error("a snapshot of a missing file equals one of nothing")
	}
}
