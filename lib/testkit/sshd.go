package testkit

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// SSHD is a private OpenSSH server on 127.0.0.1 for one test: its own host
// key, config and authorized_keys file, started as the test's user and
// killed when the test ends. It reads the authorized_keys file at every
// login, so a test writes its forced commands after start.
type SSHD struct {
	T              testing.TB
	Port           int
	Dir            string
	AuthorizedKeys string
	KnownHosts     string
	User           string

	mu  sync.Mutex
	log bytes.Buffer
}

// Key is a client key pair.
type Key struct {
	Private     string // path
	Public      string // the .pub line
	Fingerprint string // SHA256:…, as ssh-keygen -lf prints it
}

// NeedSSHD returns sshd's absolute path (sshd refuses to run from a
// relative one), failing the test when Debian's openssh-server is not
// installed: make deps provides it.
func NeedSSHD(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	if p, err := exec.LookPath("sshd"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	t.Fatalf("sshd not found: run `make deps` (make test does) to install openssh-server")
	return ""
}

// SSHDOption is one line more in the test server's sshd_config.
type SSHDOption func() string

// ExposeAuthInfo sets ExposeAuthInfo yes: sshd writes the authenticated
// key into the file $SSH_USER_AUTH names (serve's --require-auth-info).
func ExposeAuthInfo() SSHDOption { return func() string { return "ExposeAuthInfo yes" } }

// NewSSHD starts sshd on a free loopback port.
func NewSSHD(t testing.TB, opts ...SSHDOption) *SSHD {
	t.Helper()
	bin := NeedSSHD(t)
	Need(t, "ssh")
	Need(t, "ssh-keygen")
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// sshd run as root insists on its privilege-separation directory.
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	d := &SSHD{T: t, Dir: t.TempDir(), User: u.Username}
	hostKey := filepath.Join(d.Dir, "host_ed25519")
	keygen(t, "-q", "-t", "ed25519", "-N", "", "-C", "tma-test-host", "-f", hostKey)
	d.AuthorizedKeys = filepath.Join(d.Dir, "authorized_keys")
	if err := os.WriteFile(d.AuthorizedKeys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		d.Port = freePort(t)
		conf := filepath.Join(d.Dir, "sshd_config")
		body := strings.Join([]string{
			"ListenAddress 127.0.0.1:" + strconv.Itoa(d.Port),
			"HostKey " + hostKey,
			"PidFile " + filepath.Join(d.Dir, "sshd.pid"),
			"AuthorizedKeysFile " + d.AuthorizedKeys,
			"AuthenticationMethods publickey",
			"PubkeyAuthentication yes",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"UsePAM no",
			"StrictModes no",
			"PermitRootLogin prohibit-password",
			"AllowUsers " + u.Username,
			"LogLevel VERBOSE",
		}, "\n") + "\n"
		for _, o := range opts {
			body += o() + "\n"
		}
		if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, bin, "-D", "-e", "-f", conf)
		cmd.Stdout, cmd.Stderr = d.writer(), d.writer()
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatalf("sshd: %v", err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			cancel()
			<-done
			if t.Failed() {
				t.Logf("sshd log:\n%s", d.Log())
			}
		})
		if d.ready(done) {
			break
		}
		cancel()
		<-done
		if attempt == 4 {
			t.Fatalf("sshd did not start:\n%s", d.Log())
		}
	}
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	d.KnownHosts = filepath.Join(d.Dir, "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s %s\n", d.Port, f[0], f[1])
	if err := os.WriteFile(d.KnownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

type logWriter struct{ d *SSHD }

func (w logWriter) Write(p []byte) (int, error) {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	return w.d.log.Write(p)
}

func (d *SSHD) writer() logWriter { return logWriter{d} }

// Log is what sshd said so far.
func (d *SSHD) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log.String()
}

// ready waits until the port accepts, false when sshd exited first.
func (d *SSHD) ready(done chan struct{}) bool {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(d.Port)), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func keygen(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("ssh-keygen", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// NewKey makes a client key pair named name in the server's directory.
func (d *SSHD) NewKey(name string) Key {
	d.T.Helper()
	p := filepath.Join(d.Dir, "key_"+name)
	keygen(d.T, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p)
	pub, err := os.ReadFile(p + ".pub")
	if err != nil {
		d.T.Fatal(err)
	}
	f := strings.Fields(keygen(d.T, "-lf", p+".pub"))
	if len(f) < 2 {
		d.T.Fatalf("ssh-keygen -lf printed %q", f)
	}
	return Key{Private: p, Public: strings.TrimSpace(string(pub)), Fingerprint: f[1]}
}

// Authorize replaces the authorized_keys file with these lines.
func (d *SSHD) Authorize(lines ...string) {
	d.T.Helper()
	if err := os.WriteFile(d.AuthorizedKeys, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		d.T.Fatal(err)
	}
}

// SSH is the argv that dials this server with key as the test's user,
// with no command of its own (a forced command answers): -T, no config
// file, the pinned host key, batch mode.
func (d *SSHD) SSH(k Key) []string {
	return []string{"ssh", "-T", "-F", "/dev/null", "-i", k.Private, "-p", strconv.Itoa(d.Port),
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
		"-o", "UserKnownHostsFile=" + d.KnownHosts, "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10",
		d.User + "@127.0.0.1"}
}
