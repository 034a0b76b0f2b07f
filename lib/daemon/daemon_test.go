package daemon

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/tmux"
)

func TestForIsStableAndPerServer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	a, b := For("/tmp/tmux-1000/default"), For("/tmp/tmux-1000/work")
	if a != For("/tmp/tmux-1000/default") || a.Socket == b.Socket {
		t.Fatalf("paths not keyed by server: %+v %+v", a, b)
	}
	if !strings.HasSuffix(a.Socket, ".sock") || !strings.HasSuffix(a.Lock, ".lock") ||
		strings.TrimSuffix(a.Socket, ".sock") != strings.TrimSuffix(a.Lock, ".lock") {
		t.Fatalf("socket and lock not side by side: %+v", a)
	}
	if want := "tma-" + strconv.Itoa(os.Getuid()); filepath.Base(filepath.Dir(a.Socket)) != want {
		t.Fatalf("dir %s, want .../%s", filepath.Dir(a.Socket), want)
	}
	if len(filepath.Base(a.Lock)) != 16+len(".lock") {
		t.Fatalf("name is not 16 hex digits: %s", a.Lock)
	}
	for _, f := range []string{a.Log, a.Config} {
		if filepath.Dir(f) != a.Dir || !strings.HasPrefix(filepath.Base(f), strings.TrimSuffix(filepath.Base(a.Lock), ".lock")+".") {
			t.Fatalf("%s is not beside the lock", f)
		}
	}
	// With XDG_RUNTIME_DIR (absolute) the daemon lives in tma's runtime
	// directory; a relative one is ignored, as the XDG spec says.
	env := map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}
	if d := ForEnv("x", func(k string) string { return env[k] }).Dir; d != "/run/user/1000/tma" {
		t.Fatalf("dir %s", d)
	}
	env["XDG_RUNTIME_DIR"] = "rel"
	if d := ForEnv("x", func(k string) string { return env[k] }).Dir; !strings.HasSuffix(d, "tma-"+strconv.Itoa(os.Getuid())) {
		t.Fatalf("dir %s", d)
	}
}

// ServerPath finds #{socket_path} as tmux does, with no tmux.
func TestServerPath(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.MkdirAll(filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid())), 0o700)
	os.Symlink(real, filepath.Join(base, "link"))
	env := map[string]string{"TMUX_TMPDIR": filepath.Join(base, "link")}
	get := func(k string) string { return env[k] }
	want := filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid()), "work")
	if got := ServerPath(tmux.Target{SocketName: "work"}, get); got != want {
		t.Fatalf("-L work: %s, want %s (the dir resolved through the symlink)", got, want)
	}
	if got := ServerPath(tmux.Target{}, get); filepath.Base(got) != "default" {
		t.Fatalf("no name: %s", got)
	}
	if got := ServerPath(tmux.Target{SocketPath: "/x/y"}, get); got != "/x/y" {
		t.Fatalf("-S: %s", got)
	}
	env = map[string]string{}
	if got := ServerPath(tmux.Target{SocketName: "w"}, get); !strings.HasPrefix(got, "/tmp/tmux-") && !strings.Contains(got, "/tmux-") {
		t.Fatalf("default tmpdir: %s", got)
	}
}

func paths(t *testing.T) Paths {
	d := t.TempDir()
	return Paths{Server: "x", Socket: filepath.Join(d, "d.sock"), Lock: filepath.Join(d, "d.lock")}
}

func TestNoLockNoDaemon(t *testing.T) {
	r, err := Find(paths(t))
	if r != nil || err != nil {
		t.Fatalf("got %+v, %v", r, err)
	}
}

// A lock file nobody holds is what a crashed daemon leaves: not running,
// even when the pid in it is alive (ours).
func TestStaleLockIsNotADaemon(t *testing.T) {
	p := paths(t)
	os.WriteFile(p.Lock, []byte(strconv.Itoa(os.Getpid())+" 0.1.0\n"), 0o600)
	r, err := Find(p)
	if r != nil || err != nil {
		t.Fatalf("got %+v, %v", r, err)
	}
}

// A held lock names the daemon; Reload delivers SIGHUP to it.
func TestHeldLockIsFoundAndSignalled(t *testing.T) {
	p := paths(t)
	mark := filepath.Join(t.TempDir(), "hup")
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command("sh", "-c", `trap 'echo hup > "$1"; exit 0' HUP; : > "$2"; while :; do sleep 0.05; done`, "sh", mark, ready)
	// Under nohup the test inherits SIGHUP ignored and so would the shell,
	// which cannot trap a signal ignored on entry: with a handler here the
	// child starts with the default instead.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	err := cmd.Start()
	signal.Stop(hup)
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	f, err := os.OpenFile(p.Lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.WriteString(strconv.Itoa(cmd.Process.Pid) + " 9.9.9\n")
	r, err := Find(p)
	if err != nil || r == nil || r.PID != cmd.Process.Pid || r.Version != "9.9.9" {
		t.Fatalf("got %+v, %v", r, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("child never trapped HUP")
		}
	}
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the lock holder did not exit on its SIGHUP")
	}
	if b, _ := os.ReadFile(mark); strings.TrimSpace(string(b)) != "hup" {
		t.Fatalf("the daemon did not get SIGHUP (mark %q)", b)
	}
}

func TestHeldLockWithGarbage(t *testing.T) {
	p := paths(t)
	f, _ := os.OpenFile(p.Lock, os.O_CREATE|os.O_RDWR, 0o600)
	defer f.Close()
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	f.WriteString("not a pid\n")
	if _, err := Find(p); err != ErrLockUnreadable {
		t.Fatalf("err %v", err)
	}
}

// A held lock file another user owns is refused, not signalled: in a
// shared $TMPDIR it could name any of this user's pids.
func TestForeignLockIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("making a file another user owns needs root")
	}
	p := paths(t)
	if err := os.WriteFile(p.Lock, []byte(strconv.Itoa(os.Getpid())+" 0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p.Lock, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p.Lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	r, err := Find(p)
	if r != nil || err == nil || !strings.Contains(err.Error(), "uid 4242") {
		t.Fatalf("a foreign lock: got %+v, %v", r, err)
	}
}
