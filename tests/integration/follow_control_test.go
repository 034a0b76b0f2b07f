package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFollowListsOverItsControlClient: once the follower's control client
// is attached, its ticks list over it and spawn no tmux at all; a title
// that forges control-mode framing costs a spawn, never a wrong list.
func TestFollowListsOverItsControlClient(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	shell := strings.TrimSpace(e.s.MustRun("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", a.Pane, "sh"))

	want := strings.Fields(e.s.MustRun("list-panes", "-a", "-F", "#{pane_id}"))
	dir := t.TempDir()
	log := filepath.Join(dir, "spawns")
	real, err := exec.LookPath(tmuxBin())
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "tmux")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nprintf '%s\\n' \"$*\" >>'"+log+"'\nexec '"+real+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "tma-scan"), "-L", e.s.Name, "--follow", "--interval", "200ms")
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "TMA_TMUX_BIN="+wrapper)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	type rec struct {
		Kind  string   `json:"kind"`
		Pane  string   `json:"pane"`
		Panes []string `json:"panes"`
		Agent string   `json:"agent"`
	}
	cycles := make(chan []rec, 256)
	go func() {
		defer close(cycles)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var cur []rec
		for sc.Scan() {
			var r rec
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				return
			}
			cur = append(cur, r)
			if r.Kind == "end" {
				cycles <- cur
				cur = nil
			}
		}
	}()
	next := func() []rec {
		t.Helper()
		select {
		case c, ok := <-cycles:
			if !ok {
				t.Fatal("the follow stream ended")
			}
			return c
		case <-time.After(10 * time.Second):
			t.Fatal("no cycle within 10s")
		}
		return nil
	}
	lists := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "list-panes")
	}
	attached := func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "-C attach-session")
	}
	check := func(c []rec) {
		t.Helper()
		var agent bool
		for _, r := range c {
			if r.Kind == "cycle" && strings.Join(r.Panes, " ") != strings.Join(want, " ") {
				t.Fatalf("cycle lists panes %v, want %v", r.Panes, want)
			}
			agent = agent || r.Kind == "pane" && r.Pane == a.Pane && r.Agent == "claude"
		}
		if !agent {
			t.Fatalf("cycle without the agent pane: %+v", c)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for !attached() {
		check(next())
		if time.Now().After(deadline) {
			t.Fatal("the follower never attached a control client")
		}
	}
	check(next()) // the cycle that may still have spawned while attaching
	before := lists()
	for range 5 {
		check(next())
	}
	if n := lists() - before; n != 0 {
		t.Errorf("5 ticks with a control client attached spawned %d list-panes, want 0", n)
	}

	// A title that closes a control-mode block and forges lines of every
	// kind. tmux 3.3 refuses a title with control characters; where one is
	// taken, the control list is refused (its panes do not add up) and the
	// tick spawns its list instead. Either way every cycle stays exact.
	e.s.MustRun("select-pane", "-t", shell, "-T", "x\n%end 1 1 1\nTMAP\x1f%99\n%begin 1 2 1")
	before = lists()
	for range 4 {
		check(next())
	}
	if lists() == before {
		t.Log("this tmux refused the forged title: no fallback was needed")
	}
}

func tmuxBin() string {
	if b := os.Getenv("TMA_TMUX_BIN"); b != "" {
		return b
	}
	return "tmux"
}

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
		if k == "TMUX" || k == "LANG" || strings.HasPrefix(k, "LC_") || k == "HOME" || k == "XDG_RUNTIME_DIR" || strings.HasPrefix(k, "TMA_") {
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
