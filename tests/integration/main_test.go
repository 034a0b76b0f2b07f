// Package integration drives the built tma binaries against real, isolated
// tmux servers with fake agents painting known screens.
package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tma-itest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/...")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	sh, _ := os.ReadFile(filepath.Join(root, "shell", "tma"))
	if err := os.WriteFile(filepath.Join(dir, "tma"), sh, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	testkit.RemoveBuilt()
	os.Exit(code)
}

// env is an isolated tma environment: its own HOME, config and runtime
// directory (XDG_RUNTIME_DIR: the act --slot ledger).
type env struct {
	t    *testing.T
	s    *testkit.Server
	home string
	run  string
}

func newEnv(t *testing.T, config string) *env {
	t.Helper()
	e := &env{t: t, s: testkit.NewServer(t), home: t.TempDir(), run: t.TempDir()}
	if config != "" {
		d := filepath.Join(e.home, ".config", "tma")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// tma runs the dispatcher under dash against the test server.
func (e *env) tma(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	shell := "dash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	cmd := exec.Command(shell, append([]string{filepath.Join(binDir, "tma"), "-L", e.s.Name}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

// ls returns pane -> "state[/detail][ attn]" for every row.
func (e *env) ls() map[string]string {
	e.t.Helper()
	out, errs, code := e.tma("ls")
	if code != 0 {
		e.t.Fatalf("tma ls: exit %d: %s", code, errs)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 12 {
			e.t.Fatalf("ls line has %d fields, want 12: %q", len(f), line)
		}
		v := f[2]
		if f[3] != "" {
			v += "/" + f[3]
		}
		if f[7] == "1" {
			v += " attn"
		}
		rows[f[0]] = v
	}
	return rows
}

// expect runs ls until pane reaches want (the fold may need a dwell), or fails.
func (e *env) expect(pane, want string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var got map[string]string
	for time.Now().Before(deadline) {
		if got = e.ls(); got[pane] == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("timed out waiting for %s to be %q (last ls: %v)", pane, want, got)
}

func screenOf(title, body string) string { return "# title: " + title + "\n---\n" + body }

// Screens in the shape of Claude Code 2.1's chrome (see fixtures/claude for
// the captured originals).
var (
	claudeBlocked = screenOf("✳ Probe", "\n Bash command\n\n   touch probe.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again\n   3. No, and tell Claude what to do differently (esc)\n")
	claudeWorking = screenOf("✳ Probe", "> do the thing\n\n✶ Pondering… (5s · ↓ 120 tokens)\n\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  ? for shortcuts\n")
	claudeIdle    = screenOf("✳ Probe", "> do the thing\n\n● Done.\n\n✻ Worked for 6s\n\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  ? for shortcuts\n")
	claudeQuote   = screenOf("✳ Probe", "> what does the prompt say?\n\n● It asks: Do you want to proceed?\n\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  ? for shortcuts\n")
)
