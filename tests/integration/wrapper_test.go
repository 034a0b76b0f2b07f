package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// --wrapper-ref absolute with TMA_WRAPPER_PATH naming a path that does not
// exist yet: install writes the wrapper there (shown and confirmed like any
// file), the hooks name it, and it runs the tma-hook tma ships (D-232,
// D-235).
func TestInstallWritesANamedWrapper(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	wrapper := filepath.Join(t.TempDir(), "hooks", "tma-hook")
	t.Setenv("TMA_WRAPPER_PATH", wrapper)
	out, errs, code := e.tma("install-hooks", "claude", "--yes", "--wrapper-ref", "absolute")
	if code != 0 || !strings.Contains(out, "proposed change to "+wrapper+" (tma-hook wrapper)") {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	st, err := os.Stat(wrapper)
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("wrapper: %v %v", st, err)
	}
	b, _ := os.ReadFile(wrapper)
	if !strings.Contains(string(b), "exec "+filepath.Join(binDir, "tma-hook")+` "$@"`) {
		t.Errorf("wrapper script:\n%s", b)
	}
	settings, _ := os.ReadFile(filepath.Join(e.home, ".claude", "settings.json"))
	if !strings.Contains(string(settings), `"command": "`+wrapper+` claude Stop"`) {
		t.Errorf("the hooks do not name the wrapper:\n%s", settings)
	}
	// It works as the hook: an event through it stamps the pane.
	cmd := exec.Command(wrapper, "claude", "UserPromptSubmit")
	cmd.Env = e.hookEnv(a.Pane)
	cmd.Stdin = strings.NewReader(`{` + sess + `,"prompt":"hi"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the wrapper: %v %s", err, out)
	}
	if got := e.s.Option(a.Pane, "@agent_state"); got != "working" {
		t.Errorf("through the wrapper: state %q", got)
	}
	// --check and a second install agree, and write nothing more.
	if out, errs, code := e.tma("install-hooks", "--check", "--wrapper-ref", "absolute"); code != 0 {
		t.Errorf("--check: exit %d\n%s%s", code, out, errs)
	}
}
