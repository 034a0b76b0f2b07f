package integration

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// guarded is forced's line with the guard's flags after --device and the
// key options opts ("restrict", or "restrict,pty" for a line that lets an
// attach through: attaching needs the terminal restrict denies).
func (e *env) guarded(k testkit.Key, device, flags, opts string) string {
	vars := []string{"HOME=" + e.home, "XDG_RUNTIME_DIR=" + e.run, "PATH=" + binDir + ":" + os.Getenv("PATH")}
	if b := os.Getenv("TMA_TMUX_BIN"); b != "" {
		vars = append(vars, "TMA_TMUX_BIN="+b)
	}
	cmd := "env " + strings.Join(vars, " ") + " sh " + filepath.Join(binDir, "tma") + " -S " + e.s.Socket +
		" serve --stdio --device " + device + " " + flags
	return fmt.Sprintf("command=\"%s\",%s %s", cmd, opts, k.Public)
}

// runSSH runs argv to its end and returns its stderr and exit status.
func runSSH(t *testing.T, argv []string) (string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Stdin = strings.NewReader("")
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return errb.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		return errb.String(), 0
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("%v did not end in 30s: %s", argv, errb.String())
	}
	return "", -1
}

// --require-auth-info over a real sshd with ExposeAuthInfo yes: the key
// the line is for is served; a line that pairs another key with the
// device's --device (a paste gone wrong) is refused with a typed frame,
// exit 2; the same flag under an sshd that exposes nothing is refused,
// exit 1.
func TestServeGuardAuthInfoOverSSH(t *testing.T) {
	sshd := testkit.NewSSHD(t, testkit.ExposeAuthInfo())
	e := newEnv(t, "")
	phone, other := sshd.NewKey("phone"), sshd.NewKey("other")
	e.device("pair", "phone", "--id", phone.Fingerprint)
	sshd.Authorize(e.guarded(phone, phone.Fingerprint, "--require-auth-info", "restrict"),
		e.guarded(other, phone.Fingerprint, "--require-auth-info", "restrict"))

	d := dialSSH(t, sshd.SSH(phone))
	d.send(helloFrame)
	if f := d.next(); f["t"] != "hello" || fmt.Sprint(f["scopes"]) != "[read act:answer act:steer]" {
		t.Errorf("the device's own key: %s", f["_raw"])
	}
	d.in.Close()
	if c := d.wait(); c != 0 {
		t.Errorf("EOF exit %d; %s", c, d.stderr.String())
	}

	d = dialSSH(t, sshd.SSH(other))
	d.send(helloFrame)
	want := `{"schema":1,"id":"0","t":"error","code":"scope-denied","message":"the key this connection authenticated with is not the device this authorized_keys line names; fix the line's --device on the host"}`
	if f := d.next(); f["_raw"] != want {
		t.Errorf("another key on the device's line:\n got %s\nwant %s", f["_raw"], want)
	}
	if c := d.wait(); c != 2 {
		t.Errorf("another key: exit %d, want 2", c)
	}
	if !strings.Contains(d.stderr.String(), "the connection authenticated with "+other.Fingerprint+", not the key --device names") {
		t.Errorf("the host's log does not name the key: %q", d.stderr.String())
	}

	plain := testkit.NewSSHD(t)
	k := plain.NewKey("phone")
	e.device("pair", "phone2", "--id", k.Fingerprint)
	plain.Authorize(e.guarded(k, k.Fingerprint, "--require-auth-info", "restrict"))
	d = dialSSH(t, plain.SSH(k))
	d.send(helloFrame)
	if f := d.next(); f["code"] != "internal" || !strings.Contains(fmt.Sprint(f["message"]), "set ExposeAuthInfo yes in the host's sshd_config") {
		t.Errorf("no ExposeAuthInfo: %s", f["_raw"])
	}
	if c := d.wait(); c != 1 {
		t.Errorf("no ExposeAuthInfo: exit %d, want 1", c)
	}
}

// --allow-attach: with one key, a [[remote]] whose command is plain ssh
// to the forced command reads the host's rows through serve and, for a
// device holding act:always, Enter's derived `ssh -t … tma -S … attach
// --pane %N` reaches the host's tma attach, a tmux client on the pane's
// session. Without act:always the same attach is refused on stderr and
// attaches nothing; a command with more in it runs nothing.
func TestServeGuardAttachOverSSH(t *testing.T) {
	sshd := testkit.NewSSHD(t, testkit.ExposeAuthInfo())
	far := newEnv(t, "")
	b := far.s.StartAgent("claude", claudeBlocked)
	far.expect(b.Pane, "blocked/permission attn")
	far.s.MustRun("rename-session", "-t", "s", "farbox")
	k := sshd.NewKey("laptop")
	far.device("pair", "laptop", "--id", k.Fingerprint)
	sshd.Authorize(far.guarded(k, k.Fingerprint, "--require-auth-info --allow-attach", "restrict,pty"))

	// Refused without act:always, before anything runs.
	errs, code := runSSH(t, append(sshd.SSH(k), "tma", "-S", far.s.Socket, "attach", "--pane", b.Pane))
	if code != 2 || !strings.Contains(errs, "attach refused: device laptop does not hold act:always") {
		t.Errorf("attach without act:always: exit %d %q", code, errs)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	errs, code = runSSH(t, append(sshd.SSH(k), "tma", "attach", "--pane", b.Pane+";", "touch", marker))
	if code != 2 || !strings.Contains(errs, "attach refused") {
		t.Errorf("an attach with a command after it: exit %d %q", code, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the command after the attach ran")
	}
	if n := len(far.clients()); n != 0 {
		t.Errorf("%d clients on the host after refusals", n)
	}

	far.device("grant", "laptop", "act:always")
	near := newEnv(t, fmt.Sprintf("[[remote]]\nname = \"build\"\ncommand = %s\ntimeout_ms = 30000\n", tomlArgv(sshd.SSH(k))))
	home := near.tmaWindow("sleep 600")
	c := near.attach(home)
	// jump --host is Enter's window: a snapshot through serve finds the
	// pane and its server, then the window runs the derived attach.
	if _, errs, code := near.tma("--client", c.name, "jump", "--host", "build", "--pane", b.Pane); code != 0 {
		t.Fatalf("jump --host: exit %d %s", code, errs)
	}
	key := "build:" + b.Pane
	var win string
	near.s.WaitFor(func() bool { win = near.remoteWindow(key); return win != "" }, "a window called "+key)
	if cmdline := near.paneCmdline(win); !strings.Contains(cmdline, "'-t'") || !strings.Contains(cmdline, "'attach' '--pane' '"+b.Pane+"'") {
		t.Errorf("the window runs %q", cmdline)
	}
	far.s.WaitFor(func() bool { return len(far.clients()) > 0 }, "a client attached to the host over the serve key")
	if got := strings.TrimSpace(far.s.MustRun("list-clients", "-F", "#{client_session}")); got != "farbox" {
		t.Errorf("the attached client is on %q", got)
	}
}
