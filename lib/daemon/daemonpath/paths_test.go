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

// TestForEnvMeetsTheDaemonInTheOtherDir: a shell whose runtime directory
// holds no socket for the server finds the daemon a differently set
// environment started in the other place a daemon of this user lives; its
// own directory wins whenever it has one, and a directory others may
// write to is never taken.
func TestForEnvMeetsTheDaemonInTheOtherDir(t *testing.T) {
	root := t.TempDir()
	mine, other, open := filepath.Join(root, "run", "tma"), filepath.Join(root, "tmp", "tma-1"), filepath.Join(root, "shared", "tma-1")
	for _, d := range []string{mine, other, open} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	saved := otherDirs
	t.Cleanup(func() { otherDirs = saved })
	otherDirs = func() []string { return []string{open, other} }
	env := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return filepath.Dir(mine)
		}
		return ""
	}
	const server = "/tmp/tmux-1/default"
	if p := ForEnv(server, env); p.Dir != mine {
		t.Fatalf("no daemon anywhere: %s, want this shell's %s", p.Dir, mine)
	}
	name := filepath.Base(ForEnv(server, env).Socket)
	touch := func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	touch(open)
	if p := ForEnv(server, env); p.Dir != mine {
		t.Fatalf("a socket in a world-writable directory was taken: %s", p.Dir)
	}
	touch(other)
	p := ForEnv(server, env)
	if p.Dir != other || p.Socket != filepath.Join(other, name) || p.Lock != filepath.Join(other, name[:len(name)-len(".sock")]+".lock") {
		t.Fatalf("the other directory's daemon: %+v, want it under %s", p, other)
	}
	if q := ForEnv("/tmp/tmux-1/another", env); q.Dir != mine {
		t.Errorf("another server's daemon was looked up in %s", q.Dir)
	}
	touch(mine)
	if p := ForEnv(server, env); p.Dir != mine {
		t.Errorf("this shell's own daemon lost to the other's: %s", p.Dir)
	}
}
