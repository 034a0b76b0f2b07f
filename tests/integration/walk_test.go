package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// tmaNoProc runs the dispatcher in a mount namespace whose /proc is an empty
// tmpfs: the process walk fails (no /proc, and ps has nothing to read).
func (e *env) tmaNoProc(args ...string) (string, string, int) {
	e.t.Helper()
	testkit.Need(e.t, "unshare")
	script := `mount -t tmpfs none /proc && exec sh "$@"`
	argv := append([]string{"-m", "sh", "-c", script, "sh", filepath.Join(binDir, "tma"), "-L", e.s.Name}, args...)
	cmd := exec.Command("unshare", argv...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

// agentOpts is every @agent_* and @tma_* option of a pane.
func (e *env) agentOpts(pane string) map[string]string {
	out := map[string]string{}
	for k, v := range e.opts(pane) {
		if strings.HasPrefix(k, "@agent_") || strings.HasPrefix(k, "@tma_") {
			out[k] = v
		}
	}
	return out
}

// A process walk that fails once (issue 27, item 1) leaves every stored
// tuple as it was: a process-identified pane keeps its state, its done mark
// and its @agent_since, a hooked one its registration and claim, ls lists both as
// their options say, and doctor says the walk failed. The next good cycle
// finds nothing to re-stamp.
func TestFailedWalkKeepsTheFleet(t *testing.T) {
	e := newEnv(t, laneOff)
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_attention", "1") // a done nobody has read
	// A hooked pane: registered, its claim idle.
	h := e.s.StartAgent("claude", claudeIdle).Pane
	e.fire(h, "claude", "SessionStart", `{`+sess+`,"source":"startup"}`)
	e.fire(h, "claude", "Stop", `{`+sess+`}`)
	e.expect(h, "idle attn")
	beforeA, beforeH := e.agentOpts(a.Pane), e.agentOpts(h)

	out, errs, code := e.tmaNoProc("ls")
	if code != 0 {
		t.Fatalf("ls under a failed walk: exit %d: %s", code, errs)
	}
	for _, want := range []string{a.Pane + "\tclaude\tidle\t", h + "\tclaude\tidle\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls under a failed walk lacks %q:\n%s", want, out)
		}
	}
	for pane, before := range map[string]map[string]string{a.Pane: beforeA, h: beforeH} {
		after := e.agentOpts(pane)
		for k, v := range before {
			if after[k] != v {
				t.Errorf("%s: %s went from %q to %q under a failed walk", pane, k, v, after[k])
			}
		}
		for k, v := range after {
			if _, ok := before[k]; !ok {
				t.Errorf("%s: %s = %q written under a failed walk", pane, k, v)
			}
		}
	}
	if out, _, _ := e.tmaNoProc("doctor"); !strings.Contains(out, "the process walk failed") {
		t.Errorf("doctor does not say the walk failed:\n%s", out)
	}
	// The next good cycle reads the same fleet: the done mark and the state
	// run are the ones from before the failure.
	if got := e.ls(); got[a.Pane] != "idle attn" || got[h] != "idle attn" {
		t.Errorf("after the failure: %v", got)
	}
	if got := e.s.Option(a.Pane, "@agent_since"); got != beforeA["@agent_since"] {
		t.Errorf("@agent_since re-stamped: %s -> %s", beforeA["@agent_since"], got)
	}
}
