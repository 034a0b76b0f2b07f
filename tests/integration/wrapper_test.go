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

	// The uninstall of the last wired agent removes the wrapper install
	// wrote (nothing calls it any more), shown and confirmed as any file
	// (issue 27 item 19: it was left behind).
	out, errs, code = e.tma("install-hooks", "claude", "--uninstall", "--yes")
	if code != 0 || !strings.Contains(out, "tma: proposed change to "+wrapper+" (tma-hook wrapper):\n  (remove the file)\n") ||
		!strings.Contains(out, "tma: removed the tma-hook wrapper install wrote at "+wrapper+"\n") {
		t.Fatalf("uninstall: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(wrapper); !os.IsNotExist(err) {
		t.Errorf("the written wrapper is still there: %v", err)
	}
	// A wrapper of the user's own at that path is never removed.
	mine := "#!/bin/sh\nexec '" + filepath.Join(binDir, "tma-hook") + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := e.tma("install-hooks", "claude", "--yes", "--wrapper-ref", "absolute"); code != 0 || strings.Contains(out, "(tma-hook wrapper)") {
		t.Fatalf("install over the user's wrapper: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := e.tma("install-hooks", "claude", "--uninstall", "--yes"); code != 0 || strings.Contains(out, "tma-hook wrapper") {
		t.Fatalf("uninstall with the user's wrapper: exit %d\n%s%s", code, out, errs)
	}
	if b, err := os.ReadFile(wrapper); err != nil || string(b) != mine {
		t.Errorf("the user's wrapper: %v %q", err, b)
	}
}
