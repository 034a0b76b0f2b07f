// Package install tests `tma install-hooks` end to end: the CLI run in
// process against temporary HOMEs (never the real ~), a fake tma-hook on a
// hermetic PATH, and isolated tmux servers for the server hooks.
package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/cli/setup"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/testkit"
)

type home struct {
	t    *testing.T
	Dir  string // $HOME
	Bin  string // the directory on $PATH holding tma-hook
	Hook string // the fake wrapper
}

// newHome isolates the process environment: a temp HOME, PATH holding only a
// fake tma-hook, no tmux server, no config.
func newHome(t *testing.T) *home {
	t.Helper()
	root := t.TempDir()
	h := &home{t: t, Dir: filepath.Join(root, "home"), Bin: filepath.Join(root, "bin")}
	for _, d := range []string{h.Dir, h.Bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmuxBin, _ := exec.LookPath(testkit.TmuxBin())
	h.Hook = filepath.Join(h.Bin, "tma-hook")
	writeExec(t, h.Hook)
	t.Setenv("HOME", h.Dir)
	t.Setenv("PATH", h.Bin)
	t.Setenv("TMUX", "")
	t.Setenv("TMA_SOCKET_PATH", filepath.Join(root, "no-server"))
	for _, v := range []string{"XDG_CONFIG_HOME", "TMA_CONFIG", "TMA_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR",
		"CLAUDE_CONFIG_DIR", "TMA_WRAPPER_PATH"} {
		t.Setenv(v, "")
	}
	t.Setenv("TMA_TMUX_BIN", tmuxBin)
	for _, k := range install.PathKeys {
		t.Setenv(k.Var(), "")
	}
	return h
}

func writeExec(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func (h *home) path(rel string) string { return filepath.Join(h.Dir, rel) }

func (h *home) write(rel, content string) {
	h.t.Helper()
	p := h.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// read returns a file's content, "<absent>" when missing.
func (h *home) read(rel string) string {
	b, err := os.ReadFile(h.path(rel))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return "exit " + string(rune('0'+r.code)) + "\n--- stdout\n" + r.stdout + "--- stderr\n" + r.stderr
}

// tma runs `tma-setup <args>` in process with stdin that is not a terminal.
func tma(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := setupcmd.Run(args, strings.NewReader(""), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func must(t *testing.T, r result, code int, contains ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got:\n%s", code, r)
	}
	for _, c := range contains {
		if !strings.Contains(r.stdout+r.stderr, c) {
			t.Fatalf("output lacks %q:\n%s", c, r)
		}
	}
}
