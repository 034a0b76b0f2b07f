package integration

import (
	"strings"
	"testing"
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
