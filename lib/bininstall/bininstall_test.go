package bininstall

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

// TestStageThenCommit: every file is written beside its name before any
// is renamed; a source that fails halfway replaces nothing and leaves no
// temp file; a commit replaces them all, keeping the mode.
func TestStageThenCommit(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, n := range []string{"tma", "tma-a", "tma-b"} {
		write(t, filepath.Join(src, n), "new "+n)
		write(t, filepath.Join(dst, n), "old "+n)
	}
	before := listing(t, dst)
	srcs := []Source{{Name: "tma", From: filepath.Join(src, "tma")}, {Name: "tma-a", From: filepath.Join(src, "tma-a")}, {Name: "tma-c", From: filepath.Join(src, "missing")}, {Name: "tma-b", From: filepath.Join(src, "tma-b")}}
	if _, err := Stage(dst, srcs); err == nil {
		t.Fatal("staging a missing source succeeded")
	}
	if got := listing(t, dst); len(got) != len(before) || got["tma"] != "old tma" || got["tma-a"] != "old tma-a" {
		t.Fatalf("a failed stage changed the directory: %v", got)
	}
	for _, bad := range []string{"", "../x", "a/b"} {
		if _, err := Stage(dst, []Source{{Name: bad, Data: []byte("x")}}); err == nil {
			t.Errorf("the name %q was staged", bad)
		}
	}

	srcs = append(srcs[:2], srcs[3], Source{Name: "data", Data: []byte("from memory"), Mode: 0o644})
	st, err := Stage(dst, srcs)
	if err != nil {
		t.Fatal(err)
	}
	mid := listing(t, dst)
	if mid["tma"] != "old tma" || len(mid) != 3+4 {
		t.Fatalf("staging replaced a file or wrote no temp files: %v", mid)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	got := listing(t, dst)
	want := map[string]string{"tma": "new tma", "tma-a": "new tma-a", "tma-b": "new tma-b", "data": "from memory"}
	if len(got) != len(want) {
		t.Fatalf("after commit: %v", got)
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s = %q, want %q", n, got[n], w)
		}
	}
	if st, _ := os.Stat(filepath.Join(dst, "tma")); st.Mode().Perm() != 0o755 {
		t.Errorf("tma's mode: %v", st.Mode())
	}
	if st, _ := os.Stat(filepath.Join(dst, "data")); st.Mode().Perm() != 0o644 {
		t.Errorf("data's mode: %v", st.Mode())
	}
}

func TestRecordRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cfg", RecordName)
	r, err := LoadRecord(p)
	if err != nil || len(r.Installs) != 0 {
		t.Fatalf("a missing record: %+v %v", r, err)
	}
	in := r.Ensure("/x/bin")
	in.Add("tma-b", "tma", "tma-b")
	in.Fzf, in.Created = true, "/x"
	r.Ensure("/y/bin").Add("tma")
	if err := r.Save(p); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("the record's mode: %v", st.Mode())
	}
	back, err := LoadRecord(p)
	if err != nil {
		t.Fatal(err)
	}
	got := back.For("/x/bin")
	if got == nil || strings.Join(got.Files, " ") != "tma tma-b" || !got.Fzf || got.Created != "/x" {
		t.Fatalf("read back: %+v", got)
	}
	back.Forget("/x/bin")
	back.Forget("/y/bin")
	if err := back.Save(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("an empty record was kept: %v", err)
	}
	if err := os.WriteFile(p, []byte("version = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRecord(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("a record of another version: %v", err)
	}
	if err := os.WriteFile(p, []byte("version = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRecord(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("a broken record: %v", err)
	}
}

// TestToolsAreTheCommands: Tools (what uninstall removes with no record)
// is every command under cmd/ and the Makefile's TOOLS.
func TestToolsAreTheCommands(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	ents, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, e := range ents {
		cmds = append(cmds, e.Name())
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^TOOLS\s*:=\s*(.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no TOOLS in the Makefile")
	}
	mkTools := strings.Fields(string(m[1]))
	sort.Strings(mkTools)
	want := strings.Join(Tools, " ")
	if strings.Join(cmds, " ") != want || strings.Join(mkTools, " ") != want {
		t.Errorf("Tools %v\ncmd/     %v\nMakefile %v", Tools, cmds, mkTools)
	}
}

func TestGlobalsAndFrom(t *testing.T) {
	e := Exe{Known: true, Path: "/b/tma-daemon", Args: []string{"--socket-path", "/s", "--config", "/c.toml", "--manifest-dir=/m", "daemon", "--detached", "--config", "/late"}}
	if got := strings.Join(e.Globals(), " "); got != "--config /c.toml --manifest-dir /m" {
		t.Errorf("Globals: %q", got)
	}
	if !e.From("/b", "tma-daemon") || e.From("/a", "tma-daemon") {
		t.Error("From")
	}
}

func TestOnPath(t *testing.T) {
	d := t.TempDir()
	link := filepath.Join(t.TempDir(), "l")
	if err := os.Symlink(d, link); err != nil {
		t.Fatal(err)
	}
	if !OnPath(d, "/usr/bin:"+link) || OnPath(d, "/usr/bin:/bin") || OnPath(filepath.Join(d, "missing"), d) {
		t.Error("OnPath")
	}
}

// TestExeOfThisProcess: on Linux, what /proc says of a running process:
// its path, not replaced; after a rename over that path, replaced.
func TestExeOfThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		if ExeOf(os.Getpid()).Known {
			t.Error("Known off Linux")
		}
		return
	}
	self, _ := os.Executable()
	e := ExeOf(os.Getpid())
	if !e.Known || e.Path != self || e.Replaced {
		t.Errorf("ExeOf(self) = %+v, want %s", e, self)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "s")
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	write(t, bin, string(b))
	cmd := exec.Command(bin, "30")
	cmd.Env = []string{"A=1", "TMA_X=two words"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Start returns once execve passed its point of no return, when
	// /proc/<pid>/exe already names the new file but the kernel has yet to
	// lay out its arguments and environment: cmdline and environ read
	// empty for that moment (seen in CI under load). A daemon ExeOf is
	// asked about has long been running.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if len(ExeOf(cmd.Process.Pid).Args) > 0 {
			break
		}
	}
	if e := ExeOf(cmd.Process.Pid); e.Path != bin || e.Replaced || strings.Join(e.Args, " ") != "30" || strings.Join(e.Env, ",") != "A=1,TMA_X=two words" {
		t.Errorf("before the rename: %+v", e)
	}
	st, err := Stage(dir, []Source{{Name: "s", Data: b}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if e := ExeOf(cmd.Process.Pid); e.Path != bin || !e.Replaced || !e.From(dir, "s") {
		t.Errorf("after a rename over it: %+v", e)
	}
}
