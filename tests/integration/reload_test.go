package integration

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

	"github.com/tmaproject/tma/lib/daemon"
)

const noDaemon = "tma: no daemon running for this server (nothing to reload; one-shots and the picker reload on their own)\n"

// holdLock plays a daemon for server: a child that records a SIGHUP, named
// in a lock file this test holds (flock), as the daemon will hold its own.
func holdLock(t *testing.T, server string) (mark string) {
	t.Helper()
	p := daemon.For(server)
	if err := os.MkdirAll(filepath.Dir(p.Lock), 0o700); err != nil {
		t.Fatal(err)
	}
	mark = filepath.Join(t.TempDir(), "hup")
	ready := mark + ".ready"
	// A signal ignored when a shell starts cannot be trapped in it, and an
	// ignored signal stays ignored across exec: under nohup (SIGHUP
	// ignored from the top) the stand-in's trap was a no-op and the test
	// failed on every run. A handled signal is reset to its default on
	// exec, so handling SIGHUP here gives the stand-in a trappable one.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	cmd := exec.Command("sh", "-c", `trap 'echo hup >> "$1"' HUP; : > "$2"; while :; do sleep 0.05; done`, "sh", mark, ready)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	f, err := os.OpenFile(p.Lock, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(); os.Remove(p.Lock) })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.WriteString(strconv.Itoa(cmd.Process.Pid) + " 0.1.0\n")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			return mark
		}
		if time.Now().After(deadline) {
			t.Fatal("the stand-in daemon never started")
		}
	}
}

// TestReload: with no daemon, reload is the manual's no-op (exit 0); a
// daemon is the holder of the lock keyed by this server's #{socket_path},
// nothing else. (daemon_test.go reloads a real daemon.)
func TestReload(t *testing.T) {
	e := newEnv(t, "")
	t.Setenv("XDG_RUNTIME_DIR", e.run) // daemon.For here and in tma-setup agree
	run := func() (string, string, int) { return e.tmaEnv(nil, "reload") }

	out, errs, code := run()
	if code != 0 || out != noDaemon || errs != "" {
		t.Fatalf("no daemon: exit %d\n%s%s", code, out, errs)
	}

	// A lock file nobody holds (a crashed daemon's), naming a live pid.
	p := daemon.For(e.s.Socket)
	os.MkdirAll(filepath.Dir(p.Lock), 0o700)
	os.WriteFile(p.Lock, []byte(strconv.Itoa(os.Getpid())+" 0.1.0\n"), 0o600)
	if out, errs, code := run(); code != 0 || out != noDaemon {
		t.Fatalf("stale lock: exit %d\n%s%s", code, out, errs)
	}

	// Another server's daemon is not this server's.
	holdLock(t, e.s.Socket+"-other")
	if out, errs, code := run(); code != 0 || out != noDaemon {
		t.Fatalf("other server's daemon: exit %d\n%s%s", code, out, errs)
	}

	// This server's: SIGHUP, and the manual's line.
	mark := holdLock(t, e.s.Socket)
	out, errs, code = run()
	if code != 0 || out != "tma: reloaded the daemon's config + manifests\n" {
		t.Fatalf("running daemon: exit %d\n%s%s", code, out, errs)
	}
	// The stand-in runs its trap between sleeps of its own, a fork each:
	// under load that is seconds, so this waits as long as any state wait.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(mark); strings.TrimSpace(string(b)) == "hup" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon got no SIGHUP")
		}
	}

	// Global options only.
	if _, _, code := e.tma("reload", "--bogus"); code != 2 {
		t.Fatalf("reload --bogus: exit %d, want 2", code)
	}
}

// TestInitThroughTheDispatcher: `tma init` reaches tma-setup under dash,
// and with no terminal and no --yes declines (exit 1) after saying so.
func TestInitThroughTheDispatcher(t *testing.T) {
	e := newEnv(t, "")
	out, errs, code := e.tma("init", "--help")
	if code != 0 || !strings.Contains(out, "--daemon") || !strings.Contains(out, "--yes") {
		t.Fatalf("init --help: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = e.tma("init")
	if code != 1 || !strings.HasPrefix(out, "tma: no terminal on stdin and no --yes") || !strings.Contains(out, "tma: init 7/7: tma doctor") {
		t.Fatalf("init without a terminal: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".config", "tma", "tmux.conf")); err == nil {
		t.Fatal("a declined init wrote the keybindings")
	}
}

// TestInitOnATerminal: in a tmux pane every change is shown and asked for
// (`Apply this change? [y/N]`); answering y to each wires both agents and
// installs the keys; a second run asks nothing.
func TestInitOnATerminal(t *testing.T) {
	e := newEnv(t, "")
	fake := t.TempDir()
	for _, n := range []string{"claude", "codex"} {
		if err := os.WriteFile(filepath.Join(fake, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	pane := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	e.s.MustRun("resize-window", "-t", "s:", "-x", "200", "-y", "50")
	run := func(n int, answers int) string {
		out, rc := filepath.Join(dir, "out"+strconv.Itoa(n)), filepath.Join(dir, "rc"+strconv.Itoa(n))
		cmd := "HOME=" + e.home + " XDG_CONFIG_HOME= TMA_CONFIG_DIR= TMA_CONFIG= PATH=" + fake + ":" + binDir + ":/usr/bin:/bin sh " +
			filepath.Join(binDir, "tma") + " -L " + e.s.Name + " init 2>&1 | tee " + out + "; echo $? > " + rc
		// tee makes stdout a pipe, but stdin stays the pane's terminal.
		e.s.MustRun("send-keys", "-t", pane, "clear", "Enter", cmd, "Enter")
		// Every change is answered y; the offer to reload the tmux config
		// (step 4, issue 29 item 5) is answered n: a reload here would
		// start the launcher's daemon on the test's server.
		asked, applied := 0, 0
		e.s.WaitFor(func() bool {
			b, _ := os.ReadFile(out)
			if prompts := strings.Split(string(b), "[y/N] "); len(prompts)-1 > asked {
				q := prompts[asked]
				asked++
				if strings.HasSuffix(q, "Apply this change? ") {
					applied++
					e.s.MustRun("send-keys", "-t", pane, "y", "Enter")
				} else {
					e.s.MustRun("send-keys", "-t", pane, "n", "Enter")
				}
			}
			_, err := os.Stat(rc)
			return err == nil
		}, "init to finish")
		if applied != answers {
			t.Errorf("run %d: %d changes asked, want %d", n, applied, answers)
		}
		b, _ := os.ReadFile(out)
		return string(b)
	}
	out := run(1, 5)
	if strings.Contains(out, "no terminal") || strings.Count(out, "Apply this change? [y/N] ") != 5 {
		t.Fatalf("first run on a terminal:\n%s", out)
	}
	for _, want := range []string{"installed hooks for claude", "installed hooks for codex", "tma: installed keybindings", "tma: not reloaded: ", "tma: init 7/7: tma doctor"} {
		if !strings.Contains(out, want) {
			t.Errorf("first run lacks %q:\n%s", want, out)
		}
	}
	if read(t, filepath.Join(e.home, ".config", "tma", "tmux.conf")) == "" {
		t.Fatal("keys not written")
	}
	out = run(2, 0)
	if strings.Contains(out, "Apply this change?") || !strings.Contains(out, "tma: keybindings already installed") {
		t.Fatalf("second run asked again:\n%s", out)
	}
}

// TestInitDoctorSeesTheLaunchersDaemon: init --yes reloads the tmux config
// it put the keys' launcher in; step 7's doctor runs once the daemon that
// launcher starts answers, so it reports the daemon the user now has
// (before, it ran in the instant before and said "not running").
func TestInitDoctorSeesTheLaunchersDaemon(t *testing.T) {
	e := newEnv(t, "")
	conf := filepath.Join(e.home, ".tmux.conf")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// run-shell runs the launcher with the server's global environment.
	for _, kv := range [][2]string{{"PATH", binDir + ":" + os.Getenv("PATH")}, {"XDG_RUNTIME_DIR", e.run}, {"HOME", e.home}, {"TMUX", ""}} {
		e.s.MustRun("set-environment", "-g", kv[0], kv[1])
	}
	t.Cleanup(e.stopDaemon)
	out, errs, code := e.tma("init", "--yes", "--conf", conf)
	if code != 0 {
		t.Fatalf("init --yes: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "tma: reloaded ") {
		t.Fatalf("init did not reload the config:\n%s", out)
	}
	doctor := out[strings.Index(out, "tma: init 7/7"):]
	if !strings.Contains(doctor, "daemon:  running (") {
		t.Fatalf("step 7's doctor did not see the launcher's daemon:\n%s", doctor)
	}
	if e.running() == nil {
		t.Fatal("no daemon holds the lock after init")
	}
}
