package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// doctor's conditional lines: mouse bindings with the mouse off warn, and a
// missing fzf is information, not a warning under --exit-code.
func TestDoctorMouseAndFzfLines(t *testing.T) {
	e := newEnv(t, "")
	e.s.StartAgent("claude", claudeIdle)
	e.ls()
	e.s.MustRun("bind-key", "-n", "MouseDown1Status", "run-shell", `tma jump --blocked --client "#{client_name}"`)
	e.s.MustRun("set", "-g", "mouse", "off")
	out, _, _ := e.tma("doctor")
	if !strings.Contains(out, "mouse:   the status-line click bindings are installed but `mouse` is off") {
		t.Errorf("no mouse: line:\n%s", out)
	}
	e.s.MustRun("set", "-g", "mouse", "on")
	if out, _, _ := e.tma("doctor"); strings.Contains(out, "mouse:") {
		t.Errorf("mouse: line with the mouse on:\n%s", out)
	}
	js, _, _ := e.tma("doctor", "--json")
	if !strings.Contains(js, `"mouse":{"bindings_installed":true,"on":true}`) {
		t.Errorf("doctor --json mouse: %s", js)
	}
}

// A process_names entry longer than the kernel's 15-character comm matches
// by its first 15 characters, and doctor says so instead of warning.
func TestLongProcessName(t *testing.T) {
	e := newEnv(t, "")
	long := "claude-nightly-2026" // 19 characters
	dir := filepath.Join(e.home, ".config", "tma", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "manifests", "agents", "claude.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := strings.Replace(string(b), `process_names = ["claude"]`, `process_names = ["claude", "`+long+`"]`, 1)
	if m == string(b) {
		t.Fatal("claude.toml's process_names line changed shape")
	}
	if err := os.WriteFile(filepath.Join(dir, "claude.toml"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := testkit.FakeAgent(t, long)
	p := e.window("s", "set -m; "+bin+" "+writeScreen(t, e, claudeIdle)+"; exec sh")
	e.expect(p, "idle")
	out, _, _ := e.tma("doctor")
	if !strings.Contains(out, `process_names entry "`+long+`" is longer than 15 characters: it matches a process whose kernel name (comm) is its first 15, "claude-nightly-"`) {
		t.Errorf("doctor:\n%s", out)
	}
	if strings.Contains(out, "can never match") {
		t.Errorf("doctor still says it can never match")
	}
	// Not "no issues" above the entry it lists (issue 27 item 19).
	if !strings.Contains(out, "\nagents:  9 loaded, 1 note:\n  - claude: process_names entry") {
		t.Errorf("the agents line:\n%s", out)
	}
}
