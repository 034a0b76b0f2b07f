package dist

import (
	"debug/buildinfo"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/tests/notices"
)

// fzfVersion is the Makefile's FZF_VERSION, what make dist builds.
func fzfVersion(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join(root(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^FZF_VERSION\s*:=\s*(\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile pins no FZF_VERSION")
	}
	return string(m[1])
}

// unpack extracts this platform's archive and returns its directory.
func unpack(t *testing.T) string {
	t.Helper()
	x := t.TempDir()
	if out, err := exec.Command("tar", "-C", x, "-xzf", filepath.Join(dist(t), archiveName())).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	return filepath.Join(x, strings.TrimSuffix(archiveName(), ".tar.gz"))
}

// The archive's fzf is the pinned release, says so, carries fzf's own
// licence beside it, links exactly the modules the notices list for it,
// and none of tma's (it is built from fzf's module alone).
func TestArchiveFzf(t *testing.T) {
	d := unpack(t)
	want := fzfVersion(t)
	out, err := exec.Command(filepath.Join(d, "fzf"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), want+" ") {
		t.Errorf("the archive's fzf --version = %q (%v), want %s", out, err, want)
	}
	lic, err := os.ReadFile(filepath.Join(d, "LICENSE.fzf"))
	if err != nil || !strings.Contains(string(lic), "Junegunn Choi") || !strings.Contains(string(lic), "MIT") {
		t.Errorf("LICENSE.fzf is not fzf's licence (%v):\n%s", err, lic)
	}
	bi, err := buildinfo.ReadFile(filepath.Join(d, "fzf"))
	if err != nil {
		t.Fatal(err)
	}
	if bi.Path != "github.com/junegunn/fzf" {
		t.Errorf("the archive's fzf was built from %s", bi.Path)
	}
	var deps []string
	for _, m := range bi.Deps {
		if strings.HasPrefix(m.Path, "github.com/tmaproject/") {
			t.Errorf("the archive's fzf links %s", m.Path)
		}
		deps = append(deps, m.Path+" "+m.Version)
	}
	parts, err := notices.Read(filepath.Join(root(t), notices.File))
	if err != nil {
		t.Fatal(err)
	}
	listed := parts[notices.PartFZF]
	if len(listed) == 0 {
		t.Fatalf("%s lists nothing under ## %s", notices.File, notices.PartFZF)
	}
	missing, stale := notices.Diff(listed[1:], deps)
	for _, m := range missing {
		t.Errorf("the archive's fzf links %s, not in %s under ## %s", m, notices.File, notices.PartFZF)
	}
	for _, m := range stale {
		t.Errorf("%s lists %s for fzf, which it does not link", notices.File, m)
	}
}

// pathWithout is a directory of links to the programs install.sh and the
// installed dispatcher run, and nothing else: a PATH on which no fzf can
// be found, whatever this machine has installed.
func pathWithout(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	for _, tool := range []string{"sh", "uname", "curl", "sha256sum", "mktemp", "rm", "awk", "tar", "gzip", "mkdir", "cp", "chmod", "mv", "cat", "tmux"} {
		if err := os.Symlink(testkit.Need(t, tool), filepath.Join(d, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// fzfStub writes an fzf that only answers --version, as version.
func fzfStub(t *testing.T, dir, version string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "fzf")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+version+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// pickerFzf is the installed tma's own verdict on fzf, the picker's lookup
// (tma doctor's fzf line: PATH's when 0.65 or newer, else the one beside
// the tools), run with path as PATH against a server that is not there.
func pickerFzf(t *testing.T, home, bin, path string) (ok bool, line string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "tma"), "-L", "tma-dist-none", "doctor", "--json")
	cmd.Env = []string{"HOME=" + home, "PATH=" + path, "TMUX_TMPDIR=" + t.TempDir()}
	out, _ := cmd.Output() // doctor exits non-zero: there is no server
	var doc struct {
		Fzf struct {
			OK   bool   `json:"ok"`
			Line string `json:"line"`
		} `json:"fzf"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("tma doctor --json: %v\n%s", err, out)
	}
	return doc.Fzf.OK, doc.Fzf.Line
}

// With no fzf on PATH, install.sh puts the archive's beside tma, and the
// installed tma's picker finds it there and calls it usable; the fzf runs.
func TestInstallScriptInstallsFzf(t *testing.T) {
	d := dist(t)
	base, _ := serve(t, d)
	home := t.TempDir()
	bin := filepath.Join(home, "prefix", "bin")
	path := pathWithout(t)
	r := install(t, home, base, "PATH="+path, "TMA_INSTALL_DIR="+bin, "TMA_NO_COMPLETIONS=1")
	if r.code != 0 {
		t.Fatalf("install.sh exited %d:\n%s", r.code, r.out)
	}
	want := fzfVersion(t)
	if !strings.Contains(r.out, "fzf: no fzf on your PATH\n") || !strings.Contains(r.out, "tma: installed fzf (the picker's; none was in "+bin+")") {
		t.Errorf("install.sh did not say it installed fzf:\n%s", r.out)
	}
	fz := filepath.Join(bin, "fzf")
	cmd := exec.Command(fz, "--filter", "beta")
	cmd.Stdin = strings.NewReader("alpha\nbeta\ngamma\n")
	if out, err := cmd.Output(); err != nil || string(out) != "beta\n" {
		t.Errorf("the installed fzf --filter beta = %q (%v)", out, err)
	}
	ok, line := pickerFzf(t, home, bin, path)
	if !ok || !strings.Contains(line, want+" "+fz) {
		t.Errorf("the picker's fzf: ok=%v %q, want %s %s", ok, line, want, fz)
	}
	if left, _ := filepath.Glob(filepath.Join(bin, ".*")); len(left) > 0 {
		t.Errorf("temporary files left in the install dir: %q", left)
	}
	// install.sh records what it put there, so uninstall removes the fzf it
	// installed with the tools (before, it had no record and left the fzf,
	// saying it "may be yours").
	cmd = exec.Command(filepath.Join(bin, "tma"), "-L", "tma-dist-none", "uninstall", "--yes")
	cmd.Env = []string{"HOME=" + home, "PATH=" + bin + ":" + path, "TMUX_TMPDIR=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tma uninstall --yes: %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(bin); len(left) > 0 {
		var names []string
		for _, f := range left {
			names = append(names, f.Name())
		}
		t.Errorf("uninstall left %q in %s:\n%s", names, bin, out)
	}
}

// An fzf older than 0.65 on PATH gets the archive's installed beside tma
// (the picker then takes that one); a user's own new enough fzf, on PATH
// or already in the install dir, is used and never replaced.
func TestInstallScriptFzfBesideAnOldOne(t *testing.T) {
	d := dist(t)
	base, _ := serve(t, d)
	want := fzfVersion(t)
	farm := pathWithout(t)

	t.Run("older on PATH", func(t *testing.T) {
		home := t.TempDir()
		bin := filepath.Join(home, "prefix", "bin")
		old := fzfStub(t, filepath.Join(home, "distro"), "0.44.1 (debian)")
		path := filepath.Dir(old) + ":" + farm
		r := install(t, home, base, "PATH="+path, "TMA_INSTALL_DIR="+bin, "TMA_NO_COMPLETIONS=1")
		if r.code != 0 {
			t.Fatalf("install.sh exited %d:\n%s", r.code, r.out)
		}
		if !strings.Contains(r.out, "fzf: "+old+" is 0.44.1, the picker needs 0.65 or newer\n") || !strings.Contains(r.out, "tma: installed fzf (the picker's; none was in "+bin+")") {
			t.Errorf("install.sh did not name the old fzf and install its own:\n%s", r.out)
		}
		if out, err := exec.Command(filepath.Join(bin, "fzf"), "--version").Output(); err != nil || !strings.HasPrefix(string(out), want+" ") {
			t.Errorf("%s/fzf --version = %q (%v)", bin, out, err)
		}
		if b, _ := os.ReadFile(old); !strings.Contains(string(b), "0.44.1") {
			t.Error("the old fzf on PATH was changed")
		}
		ok, line := pickerFzf(t, home, bin, path)
		if !ok || !strings.Contains(line, want+" "+filepath.Join(bin, "fzf")) {
			t.Errorf("the picker's fzf: ok=%v %q, want the installed one", ok, line)
		}
	})

	t.Run("newer in the install dir", func(t *testing.T) {
		home := t.TempDir()
		bin := filepath.Join(home, "prefix", "bin")
		mine := fzfStub(t, bin, "0.99.0 (mine)")
		before, _ := os.ReadFile(mine)
		old := fzfStub(t, filepath.Join(home, "distro"), "0.44.1 (debian)")
		r := install(t, home, base, "PATH="+filepath.Dir(old)+":"+farm, "TMA_INSTALL_DIR="+bin, "TMA_NO_COMPLETIONS=1")
		if r.code != 0 {
			t.Fatalf("install.sh exited %d:\n%s", r.code, r.out)
		}
		if after, _ := os.ReadFile(mine); string(after) != string(before) {
			t.Errorf("install.sh replaced the user's fzf 0.99.0 in %s:\n%s", bin, r.out)
		}
		if !strings.Contains(r.out, "keeping "+mine+" (fzf 0.99.0, not tma's: uninstall leaves it)") {
			t.Errorf("install.sh did not say it kept the user's fzf:\n%s", r.out)
		}
	})

	t.Run("new enough on PATH", func(t *testing.T) {
		home := t.TempDir()
		bin := filepath.Join(home, "prefix", "bin")
		mine := fzfStub(t, filepath.Join(home, "mine"), "0.66.0 (brew)")
		r := install(t, home, base, "PATH="+filepath.Dir(mine)+":"+farm, "TMA_INSTALL_DIR="+bin, "TMA_NO_COMPLETIONS=1")
		if r.code != 0 {
			t.Fatalf("install.sh exited %d:\n%s", r.code, r.out)
		}
		if _, err := os.Stat(filepath.Join(bin, "fzf")); err == nil {
			t.Errorf("install.sh installed fzf beside tma though %s is 0.66.0:\n%s", mine, r.out)
		}
		if !strings.Contains(r.out, "fzf: using yours, "+mine+" (0.66.0)") {
			t.Errorf("install.sh did not say it uses the user's fzf:\n%s", r.out)
		}
	})
}
