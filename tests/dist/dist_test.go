// Package dist tests the release path end to end: the archive make dist
// builds (shell/dist.sh, for this machine's platform), served from
// 127.0.0.1, installed by scripts/install.sh into a temporary HOME (never
// the real ~), the installed tools run; a tampered archive refused; and
// every cmd building with a plain go install.
package dist

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

const version = "9.8.7"

var tools = []string{"tma-scan", "tma-fold", "tma-stamp", "tma-view", "tma-hook", "tma-wait", "tma-setup", "tma-pick", "tma-act", "tma-notify", "tma-daemon", "tma-transcript", "tma-serve"}

func root(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var (
	distOnce sync.Once
	distDir  string
	distErr  error
	distOut  []byte
)

// dist runs shell/dist.sh once for this platform into a directory that
// outlives the test that first asked (removed by TestMain).
func dist(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"sh", "tar", "sha256sum", "curl"} {
		testkit.Need(t, tool)
	}
	distOnce.Do(func() {
		distDir, distErr = os.MkdirTemp("", "tma-dist-")
		if distErr != nil {
			return
		}
		cmd := exec.Command("sh", "shell/dist.sh")
		cmd.Dir = root(t)
		cmd.Env = append(os.Environ(), "VERSION="+version, "DIST_DIR="+distDir, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
		distOut, distErr = cmd.CombinedOutput()
	})
	if distErr != nil {
		t.Fatalf("shell/dist.sh: %v\n%s", distErr, distOut)
	}
	return distDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if distDir != "" {
		_ = os.RemoveAll(distDir)
	}
	os.Exit(code)
}

func archiveName() string { return "tma-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz" }

// The archive holds the static tools, the dispatcher, fzf and its licence,
// the three completion scripts, README, LICENSE, the third-party notices
// and VERSION, and SHA256SUMS names its sum.
func TestArchive(t *testing.T) {
	d := dist(t)
	name := archiveName()
	out, err := exec.Command("tar", "-tzf", filepath.Join(d, name)).Output()
	if err != nil {
		t.Fatal(err)
	}
	top := strings.TrimSuffix(name, ".tar.gz") + "/"
	want := []string{top + "tma", top + "fzf", top + "LICENSE.fzf", top + "README.md", top + "LICENSE", top + "THIRD_PARTY_NOTICES.md", top + "VERSION", top + "completions/tma.bash", top + "completions/_tma", top + "completions/tma.fish"}
	for _, tool := range tools {
		want = append(want, top+tool)
	}
	listed := strings.Fields(string(out))
	for _, w := range want {
		if !slices.Contains(listed, w) {
			t.Errorf("archive lacks %s (has %q)", w, listed)
		}
	}

	data, err := os.ReadFile(filepath.Join(d, name))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sums, err := os.ReadFile(filepath.Join(d, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if line := hex.EncodeToString(sum[:]) + "  " + name + "\n"; string(sums) != line {
		t.Errorf("SHA256SUMS = %q, want %q", sums, line)
	}

	// Static: no program interpreter (no dynamic loader, no libc).
	if runtime.GOOS == "linux" {
		x := t.TempDir()
		if out, err := exec.Command("tar", "-C", x, "-xzf", filepath.Join(d, name)).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		for _, tool := range append([]string{"fzf"}, tools...) {
			f, err := elf.Open(filepath.Join(x, top, tool))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Errorf("%s is dynamically linked", tool)
				}
			}
			f.Close()
		}
	}
}

// serve serves dir at both release URL shapes install.sh reads:
// <base>/latest/download/<file> and <base>/download/<tag>/<file>.
func serve(t *testing.T, dir string) (base string, hits func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/releases/latest/download/"):
			p = strings.TrimPrefix(p, "/releases/latest/download")
		case strings.HasPrefix(p, "/releases/download/v"+version+"/"):
			p = strings.TrimPrefix(p, "/releases/download/v"+version)
		default:
			http.NotFound(w, r)
			return
		}
		r.URL.Path = p
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/releases", func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
}

type result struct {
	out  string
	code int
}

// install runs scripts/install.sh with a temporary HOME and the given
// variables, and nothing else of the caller's environment but PATH.
func install(t *testing.T, home, base string, vars ...string) result {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(root(t), "scripts", "install.sh"))
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMA_BASE_URL=" + base}, vars...)
	cmd.Dir = home
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("install.sh did not finish:\n%s", b.String())
	}
	return result{b.String(), cmd.ProcessState.ExitCode()}
}

func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func TestInstallScript(t *testing.T) {
	d := dist(t)
	base, hits := serve(t, d)
	home := t.TempDir()
	r := install(t, home, base)
	if r.code != 0 {
		t.Fatalf("install.sh exited %d:\n%s", r.code, r.out)
	}
	bin := filepath.Join(home, ".local", "bin")
	for _, f := range append([]string{"tma"}, tools...) {
		st, err := os.Stat(filepath.Join(bin, f))
		if err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("%s not installed executable in ~/.local/bin: %v", f, err)
		}
	}
	if !strings.Contains(r.out, "is not on your PATH") || !strings.Contains(r.out, `export PATH="$HOME/.local/bin:$PATH"`) {
		t.Errorf("no PATH hint:\n%s", r.out)
	}
	if h := hits(); !slices.Contains(h, "/releases/latest/download/SHA256SUMS") || !slices.Contains(h, "/releases/latest/download/"+archiveName()) {
		t.Errorf("requests %q", h)
	}

	// The installed tools run, through the installed dispatcher.
	env := []string{"HOME=" + home, "PATH=" + bin + ":" + os.Getenv("PATH")}
	v := run(t, env, filepath.Join(bin, "tma"), "version")
	if !strings.HasPrefix(v, "tma "+version+"\n") || !strings.Contains(v, "go:       go") {
		t.Errorf("tma version:\n%s", v)
	}
	if v := run(t, env, filepath.Join(bin, "tma"), "--version"); v != "tma "+version+"\n" {
		t.Errorf("tma --version = %q", v)
	}
	script := filepath.Join(t.TempDir(), "c.bash")
	if err := os.WriteFile(script, []byte(run(t, env, filepath.Join(bin, "tma"), "completions", "bash")), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, env, "bash", "-n", script)

	// Completions for the shells this machine has, where each reads them.
	places := map[string]string{
		"bash": ".local/share/bash-completion/completions/tma",
		"zsh":  ".local/share/zsh/site-functions/_tma",
		"fish": ".config/fish/completions/tma.fish",
	}
	for sh, p := range places {
		_, err := os.Stat(filepath.Join(home, p))
		if _, have := exec.LookPath(sh); have == nil {
			if err != nil {
				t.Errorf("%s is here but its completion was not installed: %v\n%s", sh, err, r.out)
			}
			want := run(t, env, filepath.Join(bin, "tma"), "completions", sh)
			if got, _ := os.ReadFile(filepath.Join(home, p)); string(got) != want {
				t.Errorf("~/%s differs from tma completions %s", p, sh)
			}
		} else if err == nil {
			t.Errorf("%s is not here, yet ~/%s was written", sh, p)
		}
	}
	if _, err := exec.LookPath("zsh"); err == nil && !strings.Contains(r.out, "fpath=(~/.local/share/zsh/site-functions $fpath)") {
		t.Errorf("no zsh fpath hint:\n%s", r.out)
	}

	// Run again: the new files replace the old in place.
	old, _ := os.Stat(filepath.Join(bin, "tma-hook"))
	if r := install(t, home, base); r.code != 0 {
		t.Fatalf("second install exited %d:\n%s", r.code, r.out)
	}
	if now, _ := os.Stat(filepath.Join(bin, "tma-hook")); os.SameFile(old, now) {
		t.Error("the upgrade did not replace tma-hook (same file)")
	}
	if left, _ := filepath.Glob(filepath.Join(bin, ".*")); len(left) > 0 {
		t.Errorf("temporary files left in the install dir: %q", left)
	}
}

// A pinned version, another directory, and no completions.
func TestInstallScriptVariables(t *testing.T) {
	d := dist(t)
	base, hits := serve(t, d)
	home := t.TempDir()
	r := install(t, home, base, "TMA_VERSION=v"+version, "TMA_INSTALL_DIR=~/tools", "TMA_NO_COMPLETIONS=1")
	if r.code != 0 {
		t.Fatalf("install.sh exited %d:\n%s", r.code, r.out)
	}
	if _, err := os.Stat(filepath.Join(home, "tools", "tma-hook")); err != nil {
		t.Errorf("TMA_INSTALL_DIR=~/tools not honoured: %v\n%s", err, r.out)
	}
	if h := hits(); !slices.Contains(h, "/releases/download/v"+version+"/"+archiveName()) {
		t.Errorf("TMA_VERSION not honoured: requests %q", h)
	}
	for _, p := range []string{".local/share", ".config/fish", ".local/bin"} {
		if _, err := os.Stat(filepath.Join(home, p)); err == nil {
			t.Errorf("~/%s created with TMA_NO_COMPLETIONS=1 and TMA_INSTALL_DIR set", p)
		}
	}
}

// An archive that does not match SHA256SUMS is refused and nothing is
// installed; so is a release with no line for this platform.
func TestInstallScriptRefusesTampering(t *testing.T) {
	d := dist(t)
	bad := t.TempDir()
	data, err := os.ReadFile(filepath.Join(d, archiveName()))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(filepath.Join(bad, archiveName()), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(d, "SHA256SUMS"))
	if err := os.WriteFile(filepath.Join(bad, "SHA256SUMS"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := serve(t, bad)
	home := t.TempDir()
	r := install(t, home, base)
	if r.code == 0 || !strings.Contains(r.out, "does not match SHA256SUMS") || !strings.Contains(r.out, "not installed") {
		t.Errorf("a tampered archive: exit %d\n%s", r.code, r.out)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin")); err == nil {
		t.Error("something was installed from a tampered archive")
	}

	if err := os.WriteFile(filepath.Join(bad, "SHA256SUMS"), []byte(strings.Repeat("0", 64)+"  tma-plan9-mips.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := install(t, t.TempDir(), base); r.code == 0 || !strings.Contains(r.out, "SHA256SUMS has no line for "+archiveName()) {
		t.Errorf("no line for this platform: exit %d\n%s", r.code, r.out)
	}
}

// go install github.com/tmaproject/tma/cmd/...@version: the module path is
// that, and every cmd builds with a plain go install (no generate step, no
// cgo) and runs.
func TestGoInstall(t *testing.T) {
	r := root(t)
	mod, err := os.ReadFile(filepath.Join(r, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mod), "module github.com/tmaproject/tma\n") {
		t.Fatalf("go.mod does not declare github.com/tmaproject/tma:\n%s", mod)
	}
	cmds, err := filepath.Glob(filepath.Join(r, "cmd", "*"))
	if err != nil || len(cmds) != len(tools) {
		t.Fatalf("cmd/ holds %d commands, the release %d (%v)", len(cmds), len(tools), err)
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/...")
	cmd.Dir = r
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/...: %v\n%s", err, out)
	}
	for _, c := range cmds {
		if _, err := os.Stat(filepath.Join(gobin, filepath.Base(c))); err != nil {
			t.Errorf("go install did not build %s: %v", filepath.Base(c), err)
		}
	}
	if out := run(t, os.Environ(), filepath.Join(gobin, "tma-view"), "version"); !strings.HasPrefix(out, "tma ") {
		t.Errorf("tma-view version from go install: %q", out)
	}
}
