package daemon

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Semver parses MAJOR.MINOR.PATCH, digits only: anything else (a -dev
// suffix, a missing part) is not a version the upgrade rule compares.
func Semver(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return out, false
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// Newer reports whether a is strictly newer than b, both MAJOR.MINOR.PATCH.
func Newer(a, b string) bool {
	x, ok1 := Semver(a)
	y, ok2 := Semver(b)
	if !ok1 || !ok2 {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return x[i] > y[i]
		}
	}
	return false
}

// UpgradeEvery bounds the automatic restarts of one server's daemon: a new
// build whose daemon will not stay up flaps at most once a minute.
const UpgradeEvery = 60 * time.Second

// UpgradeDue is [daemon] restart_on_upgrade's version rule for a running
// daemon r and this build self: both versions parse, self is strictly
// newer, and r's pid is alive. Equal never restarts, and an older build
// never touches a newer daemon, so two installs cannot take turns.
func UpgradeDue(r *Running, self string) bool {
	if r == nil || !Newer(self, r.Version) {
		return false
	}
	err := syscall.Kill(r.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ClaimUpgrade takes the server's one automatic restart: it holds an flock
// on p.Upgraded (a second process finds it held) and refuses when the
// time written there is within UpgradeEvery of now, so a new build whose
// daemon will not stay up flaps at most once a minute. On success the
// time is now and the claim is held until release.
func ClaimUpgrade(p Paths, now time.Time) (release func(), ok bool) {
	f, err := os.OpenFile(p.Upgraded, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false
	}
	if ownedBySelf(f) != nil || syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	if last, err := strconv.ParseInt(strings.TrimSpace(string(buf[:n])), 10, 64); err == nil {
		if d := now.Sub(time.UnixMilli(last)); d >= 0 && d < UpgradeEvery {
			f.Close()
			return nil, false
		}
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.FormatInt(now.UnixMilli(), 10)+"\n"), 0)
	return func() { f.Close() }, true
}

// FindTool returns the tma tool name beside the running executable, else
// the one on $PATH, else name itself (whose start then fails with a clear
// error).
func FindTool(name string) string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// Kick starts `tma-daemon --socket-path <server> daemon <flag>` detached
// (its own session, stdio on /dev/null, cwd /) and does not wait for it:
// what a hot path (a status line, a hook) does when the daemon is to be
// started (autostart) or replaced (restart_on_upgrade), so it never waits
// out a restart itself. The child inherits env minus a pipeline lifeline.
func Kick(server, flag string, extra ...string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	args := append([]string{"--socket-path", server}, extra...)
	cmd := exec.Command(FindTool("tma-daemon"), append(args, "daemon", flag)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMA_PIPELINE_PID=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// Policy is the [daemon] keys a surface or hook acts on after asking.
type Policy struct {
	Autostart        bool
	RestartOnUpgrade bool
	Self             string   // this build's version
	Globals          []string // --config/--manifest-dir for the daemon it starts
}

// AfterAsk is what a surface or a hook does with the answer it got from
// the daemon of p (version from its reply; err from the call), never
// waiting: no daemon and autostart on starts one; a daemon of an older
// build and restart_on_upgrade on starts the replacement, which applies
// the whole rule (UpgradeDue, ClaimUpgrade) itself. The common case, a
// daemon of this build, costs nothing: the version came in the reply.
func AfterAsk(p Paths, version string, err error, pol Policy) {
	switch {
	case errors.Is(err, ErrNoDaemon) && pol.Autostart:
		_ = Kick(p.Server, "--ensure", pol.Globals...)
	case version != "" && pol.RestartOnUpgrade && Newer(pol.Self, version):
		_ = Kick(p.Server, "--upgrade", pol.Globals...)
	}
}

// PolicyOf builds a Policy; config and manifestDir are the caller's
// global flags (made absolute: the daemon runs from /).
func PolicyOf(autostart, restartOnUpgrade bool, self, config, manifestDir string) Policy {
	pol := Policy{Autostart: autostart, RestartOnUpgrade: restartOnUpgrade, Self: self}
	for _, kv := range [][2]string{{"--config", config}, {"--manifest-dir", manifestDir}} {
		if kv[1] != "" {
			if a, err := filepath.Abs(kv[1]); err == nil {
				kv[1] = a
			}
			pol.Globals = append(pol.Globals, kv[0], kv[1])
		}
	}
	return pol
}

// Surface is AfterAsk for a surface that did not ask the daemon: no lock
// held and autostart on starts one; a held lock naming an older build and
// restart_on_upgrade on starts the replacement. The common case costs a
// stat of the lock file, or its read and a liveness probe.
func Surface(p Paths, pol Policy) {
	if !pol.Autostart && !pol.RestartOnUpgrade {
		return
	}
	r, err := Find(p)
	switch {
	case err != nil:
	case r == nil && pol.Autostart:
		_ = Kick(p.Server, "--ensure", pol.Globals...)
	case r != nil && pol.RestartOnUpgrade && UpgradeDue(r, pol.Self):
		_ = Kick(p.Server, "--upgrade", pol.Globals...)
	}
}

// Restart runs exe (a tma-daemon, the build just installed) with
// `daemon --restart` and args (the server and the old daemon's globals),
// under env (nil: this process's), and waits for it, bounded by ctx: the
// replacement an install makes, which reports what it did, unlike Kick's
// detached start on a hot path. It returns the command's output.
func Restart(ctx context.Context, exe string, args, env []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, exe, append(append([]string{}, args...), "daemon", "--restart")...)
	cmd.Dir = "/"
	cmd.Env = env
	return cmd.CombinedOutput()
}
