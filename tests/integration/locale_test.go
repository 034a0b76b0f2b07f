package integration

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListWithoutAUTF8Locale: with no UTF-8 locale (cron, an sshd without
// PAM) and outside tmux, a tmux client wants its output escaped and would
// print the list's separator as "_"; the cycle still sees every agent, in
// one-shot and follow mode alike. TMUX must be unset, not empty: tmux
// takes any $TMUX as a UTF-8 client.
func TestListWithoutAUTF8Locale(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		// TMA_TMUX_BIN stays: it is the tmux under test, and a 3.3a client
		// cannot speak to a 3.7c server (3.6 changed the imsg header).
		if k == "TMUX" || k == "LANG" || strings.HasPrefix(k, "LC_") || k == "HOME" || k == "XDG_RUNTIME_DIR" || strings.HasPrefix(k, "TMA_") && k != "TMA_TMUX_BIN" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "PATH="+binDir+":"+os.Getenv("PATH"))
	ls := exec.Command("sh", filepath.Join(binDir, "tma"), "-L", e.s.Name, "ls")
	ls.Env = env
	out, err := ls.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), a.Pane+"\tclaude\tidle") {
		t.Fatalf("ls without a locale (%v): %q", err, out)
	}
	sh := "exec '" + filepath.Join(binDir, "tma-scan") + "' -L " + e.s.Name + " --follow --interval 200ms | head -c 200000"
	cmd := exec.Command("sh", "-c", sh)
	cmd.Env = env
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	seen := 0
	deadline := time.Now().Add(15 * time.Second)
	for seen < 5 && time.Now().Before(deadline) && sc.Scan() {
		if strings.Contains(sc.Text(), `"pane":"`+a.Pane+`"`) && strings.Contains(sc.Text(), `"agent":"claude"`) {
			seen++
		}
	}
	if seen < 5 {
		t.Fatalf("follow without a locale: %d cycles carried the agent, want 5", seen)
	}
}
