package sshguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// keygen makes a key of typ with ssh-keygen and returns its .pub line and
// the fingerprints ssh-keygen -lf prints for it (SHA256, then MD5).
func keygen(t *testing.T, typ string) (pub, sha, md string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Fatalf("ssh-keygen not installed: make deps installs openssh-client")
	}
	p := filepath.Join(t.TempDir(), "k")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", typ, "-N", "", "-C", "test", "-f", p).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -t %s: %v %s", typ, err, out)
	}
	b, err := os.ReadFile(p + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	field := func(args ...string) string {
		out, err := exec.Command("ssh-keygen", append(args, "-lf", p+".pub")...).Output()
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(out))
		if len(f) < 2 {
			t.Fatalf("ssh-keygen -lf printed %q", out)
		}
		return f[1]
	}
	return strings.TrimSpace(string(b)), field(), field("-E", "md5")
}

// Each key type's fingerprint is the one ssh-keygen prints, read from an
// SSH_USER_AUTH file as sshd writes it (a publickey line, the comment
// dropped).
func TestFingerprintMatchesSSHKeygen(t *testing.T) {
	for _, typ := range []string{"ed25519", "ecdsa", "rsa"} {
		pub, sha, md := keygen(t, typ)
		f := strings.Fields(pub)
		keys, err := ReadAuthInfo(strings.NewReader("publickey " + f[0] + " " + f[1] + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if len(keys) != 1 || keys[0].Type != f[0] {
			t.Fatalf("%s: %+v", typ, keys)
		}
		if got := keys[0].SHA256(); got != sha {
			t.Errorf("%s: SHA256 %s, ssh-keygen says %s", typ, got, sha)
		}
		if got := keys[0].MD5(); got != md {
			t.Errorf("%s: MD5 %s, ssh-keygen says %s", typ, got, md)
		}
		if _, ok := Match(keys, sha); !ok {
			t.Errorf("%s: its own SHA256 does not match", typ)
		}
		if _, ok := Match(keys, strings.ToUpper(md)); !ok {
			t.Errorf("%s: its own MD5 (upper case) does not match", typ)
		}
		if _, ok := Match(keys, strings.ToLower(sha)); ok && strings.ToLower(sha) != sha {
			t.Errorf("%s: a SHA256 in the wrong case matched", typ)
		}
	}
}

// Two methods, a non-key method among them: the key lines are the keys,
// and either one matches; the other key's id does not.
func TestReadAuthInfoSeveralMethods(t *testing.T) {
	a, shaA, _ := keygen(t, "ed25519")
	b, shaB, _ := keygen(t, "ed25519")
	_, shaC, _ := keygen(t, "ed25519")
	fa, fb := strings.Fields(a), strings.Fields(b)
	body := "keyboard-interactive\npublickey " + fa[0] + " " + fa[1] + "\npublickey " + fb[0] + " " + fb[1] + "\n"
	keys, err := ReadAuthInfo(strings.NewReader(body))
	if err != nil || len(keys) != 2 {
		t.Fatalf("%d keys, %v", len(keys), err)
	}
	for _, id := range []string{shaA, shaB} {
		if _, ok := Match(keys, id); !ok {
			t.Errorf("%s does not match", id)
		}
	}
	if _, ok := Match(keys, shaC); ok {
		t.Errorf("a third key's id matched")
	}
	if _, ok := Match(keys, "phone"); ok {
		t.Errorf("a name matched")
	}
}

func TestReadAuthInfoRefusals(t *testing.T) {
	pub, _, _ := keygen(t, "ed25519")
	f := strings.Fields(pub)
	for _, tc := range []struct{ name, body, want string }{
		{"empty", "", "no publickey line"},
		{"password only", "password\n", "no publickey line"},
		{"no key", "publickey ssh-ed25519\n", "line 1: a publickey line without"},
		{"not base64", "publickey ssh-ed25519 !!!\n", "line 1: the key is not base64"},
		{"type mismatch", "publickey ssh-rsa " + f[1] + "\n", "line 1: the key blob is not a ssh-rsa key"},
		{"short blob", "publickey ssh-ed25519 AAE=\n", "line 1: a key blob of 2 bytes"},
		{"length past the end", "publickey ssh-ed25519 AAAA/3NzaA==\n", "line 1: the key blob is not"},
	} {
		if _, err := ReadAuthInfo(strings.NewReader(tc.body)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The attaches the picker derives are read word for word.
func TestParseAttach(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Attach
	}{
		{"tma attach --pane %3", Attach{Pane: "%3"}},
		{"tma -S /tmp/tmux-1000/default attach --pane %12", Attach{SocketPath: "/tmp/tmux-1000/default", Pane: "%12"}},
		{"tma -S '/tmp/a dir/it'\\''s' attach --pane %0", Attach{SocketPath: "/tmp/a dir/it's", Pane: "%0"}},
		{"tma -L work attach --pane %7", Attach{SocketName: "work", Pane: "%7"}},
		{"/opt/bin/tma attach --pane %1", Attach{Pane: "%1"}},
		{"tma  attach  --pane  %1", Attach{Pane: "%1"}},
		{"tma -S '/tmp/$HOME;x' attach --pane %1", Attach{SocketPath: "/tmp/$HOME;x", Pane: "%1"}},
	} {
		got, err := ParseAttach(tc.cmd)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.cmd, got, err, tc.want)
		}
		if !IsAttach(tc.cmd) {
			t.Errorf("%q is not an attach", tc.cmd)
		}
	}
}

// Whatever a shell would do more with, or any word beyond the grammar,
// is refused.
func TestParseAttachHostile(t *testing.T) {
	for _, cmd := range []string{
		"",
		"tma",
		"attach --pane %1",
		"sh attach --pane %1",
		"tma attach",
		"tma attach --pane",
		"tma attach --pane %1 %2",
		"tma attach --pane %1 --print",
		"tma attach --pane=%1",
		"tma attach -p %1",
		"tma attach --pane 1",
		"tma attach --pane %1x",
		"tma attach --pane %12345678901",
		"tma attach --pane '%1",
		"tma attach --pane %1'",
		"tma attach --pane \"%1\"",
		"tma attach --pane %1; id",
		"tma attach --pane %1;id",
		"tma attach --pane %1 && id",
		"tma attach --pane %1 | id",
		"tma attach --pane %1 &",
		"tma attach --pane $(id)",
		"tma attach --pane `id`",
		"tma attach --pane %1 > /tmp/x",
		"tma attach --pane %1\nid",
		"tma attach --pane %1\rid",
		"tma\tattach --pane %1",
		"tma attach --pane %1 # x",
		"tma attach --pane %{1}",
		"tma attach --pane %1\\",
		"tma attach --pane \\%1",
		"tma -S attach --pane %1",
		"tma -S -L attach --pane %1",
		"tma -S '' attach --pane %1",
		"tma -L a/b attach --pane %1",
		"tma -S /s -L x attach --pane %1",
		"tma attach --pane %1 -S /s",
		"tma -S '/s\n' attach --pane %1",
		"tma serve attach --pane %1",
		"tma jump --pane %1",
		"tma -S /s",
		"tma attach --pane ~",
		"tma attach --pane %1*",
		"tma attach --pane %ü",
		"tma attach --pane %1" + strings.Repeat(" ", MaxCommand),
	} {
		if a, err := ParseAttach(cmd); err == nil {
			t.Errorf("%q was read as %+v", cmd, a)
		}
	}
	if IsAttach("tma serve --stdio --device x") || IsAttach("") {
		t.Errorf("a serve is an attach")
	}
}
