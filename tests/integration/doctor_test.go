package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/testkit"
)

func TestDoctor(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	b := e.s.StartAgent("codex", claudeIdle)
	ign := e.s.StartAgent("claude", claudeIdle)
	e.s.MustRun("set-option", "-p", "-t", ign.Pane, "@agent_ignore", "manual")
	foreign := e.s.StartAgent("claude", claudeIdle)

	// Before any driver ran: not polling, nothing installed, tier 1.
	out, errs, code := e.tma("doctor", "--exit-code")
	if code != 1 || !strings.Contains(errs, "tma: doctor: ") || !strings.Contains(out, "ambient: NOT polling") {
		t.Fatalf("doctor before: exit %d\n%s\n%s", code, out, errs)
	}
	e.ls()
	// An ls cycle is not the status-line driver (D-033): still not polling.
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "ambient: NOT polling") {
		t.Errorf("doctor after an ls counts it as the ambient driver:\n%s", out)
	}
	if _, errs, code := e.tma("status", "--format", "plain"); code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	// Another tool writes a token outside the closed set after the cycle.
	e.s.MustRun("set-option", "-p", "-t", foreign.Pane, "@agent_state", "done")
	if _, errs, code := e.tma("install-hooks", "claude", "--yes"); code != 0 {
		t.Fatalf("install-hooks: %d %s", code, errs)
	}
	out, errs, code = e.tma("doctor", "--exit-code")
	for _, re := range []string{
		`(?m)^daemon:  not running \(.*\.sock\) — tier 3 needs a running daemon \(` + "`tma daemon --ensure`" + `\)$`,
		`(?m)^ambient: polling — ` + "`tma status`" + ` last ran \d+\.\ds ago$`,
		`(?m)^clients: none attached — `,
		`(?m)^watch:   no watcher running`,
		`(?m)^hooks:   after-select-pane ✓  session-window-changed ✓$`,
		`(?m)^wrapper: tma-hook ✓ on \$PATH \(.*/tma-hook\)$`,
		`(?m)^agents:  9 loaded, no issues$`,
		`(?m)^ignored: 1 pane\(s\) excluded from detection — .*\n  - ` + regexp.QuoteMeta(ign.Pane) + ` s:\d+\.0 \(ignored via @agent_ignore = manual\)$`,
		`(?m)^panes \(3\):$`,
		`(?m)^  ` + regexp.QuoteMeta(a.Pane) + `\s+claude     s:\d+\.0\s+tier 2   blocked/permission \(capture, \d+\.\ds ago\)\n       hooks: wired\n       not tier 3: daemon not running`,
		`(?m)^  ` + regexp.QuoteMeta(b.Pane) + `\s+codex      s:\d+\.0\s+tier 1   `,
		`(?m)^       not tier 2: hooks not installed for codex \(run ` + "`tma install-hooks codex`" + `\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("doctor output lacks %s\n%s", re, out)
		}
	}
	// Warnings: no client attached; the stamp another tool wrote. A missing
	// fzf is an info line, never a warning. Below tier: codex.
	warnings := 2
	if want := "tma: doctor: " + itoa(int64(warnings)) + " warning(s), 1 pane(s) below the tier their manifest supports"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("--exit-code: %d %q, want %q", code, errs, want)
	}
	if !strings.Contains(out, "stamps:  1 pane(s) carry a stamp tma cannot decode or did not write") {
		t.Errorf("foreign stamp not reported:\n%s", out)
	}

	out, _, _ = e.tma("doctor", "--json")
	want := "schema server config daemon ambient_driver clients status_option mouse keys watch wrapper notify tmux_hooks manifests process_name_issues process_walk nested_multiplexers remote_panes ignored_panes stamp_issues agents actions fzf warnings below_tier"
	if got := testkit.KeyOrder(t, out); got != want {
		t.Errorf("doctor --json keys:\n got %s\nwant %s", got, want)
	}
	var doc struct {
		Agents []map[string]any `json:"agents"`
		Daemon struct{ Alive bool }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Agents) != 3 || doc.Daemon.Alive {
		t.Fatalf("%v %s", err, out)
	}
	if got := testkit.KeyOrder(t, mustJSON(t, doc.Agents[0])); got == "" {
		t.Fatal("no agent keys")
	}
	for _, ag := range doc.Agents {
		if ag["agent"] == "claude" && (ag["tier"] != float64(2) || ag["hook_status"] != "wired") {
			t.Errorf("claude pane: %v", ag)
		}
	}
	// Doctor is read-only: it stamps nothing.
	before := e.s.Option(b.Pane, "@agent_stamped_at")
	e.tma("doctor")
	if e.s.Option(b.Pane, "@agent_stamped_at") != before {
		t.Error("doctor stamped a pane")
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAttentionClearsWithAnAttachedClient installs the tmux hooks, attaches
// a real client, and moves it onto a flagged pane.
func TestAttentionClearsWithAnAttachedClient(t *testing.T) {
	testkit.Need(t, "script")
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeBlocked)
	b := e.s.StartAgent("claude", claudeBlocked)
	e.ls()
	if e.s.Option(a.Pane, "@agent_attention") != "1" || e.s.Option(b.Pane, "@agent_attention") != "1" {
		t.Fatal("no attention to clear")
	}
	if _, errs, code := e.tma("install-hooks", "claude", "--yes"); code != 0 {
		t.Fatalf("install-hooks: %s", errs)
	}
	// The client lands on a neutral window of its own, then moves to a.
	home := strings.TrimSpace(e.s.MustRun("new-window", "-d", "-P", "-F", "#{window_index}", "-t", "s:", "sleep", "600"))
	cmd := exec.Command("script", "-qfc", e.s.Bin+" -L "+e.s.Name+" attach -t s:"+home, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm", "TMUX=", "PATH="+binDir+":"+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	e.s.WaitFor(func() bool {
		out, _ := e.s.Run("list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	}, "a client attached")
	win := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{window_index}"))
	e.s.MustRun("select-window", "-t", "s:"+win)
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_attention") == "" }, "attention cleared on arrival")
	if e.s.Option(b.Pane, "@agent_attention") != "1" {
		t.Error("a pane the client never visited lost its mark")
	}
}

// TestDoctorAmbientCountsTheDaemon: a running daemon is the ambient
// driver (it cycles and keeps @tma_status itself), so a server whose status
// line runs no `tma status` is not "NOT polling" while one runs, and the
// line is not a warning; stopped, the line is back (issue 29 item 5).
func TestDoctorAmbientCountsTheDaemon(t *testing.T) {
	e := newEnv(t, "")
	e.s.StartAgent("claude", claudeIdle)
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "ambient: NOT polling") {
		t.Fatalf("no driver and no daemon:\n%s", out)
	}
	e.ensure()
	out, errs, _ := e.tma("doctor", "--json")
	if !strings.Contains(out, `"ambient_driver":{"polling":true`) {
		t.Errorf("doctor --json with a daemon: %s%s", out, errs)
	}
	out, _, _ = e.tma("doctor")
	if !strings.Contains(out, "ambient: the daemon drives every cycle (tier 3)") || strings.Contains(out, "NOT polling") {
		t.Errorf("doctor with a daemon running:\n%s", out)
	}
	e.stopDaemon()
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "ambient: NOT polling") {
		t.Errorf("doctor after the daemon stopped:\n%s", out)
	}
}

// TestDoctorFindsTheLaunchersDaemon: the keys' launcher starts the daemon
// with the tmux server's environment; when the server's XDG_RUNTIME_DIR is
// not this shell's, the daemon lives in another directory. doctor looks
// there too: the daemon is running, drives the ambient cycle, and doctor
// says why this shell's commands do not reach it (it said "not running"
// and "NOT polling" while the daemon drove every cycle).
func TestDoctorFindsTheLaunchersDaemon(t *testing.T) {
	e := newEnv(t, "")
	e.s.StartAgent("claude", claudeIdle)
	serverRun := t.TempDir()
	for _, kv := range [][2]string{{"PATH", binDir + ":" + os.Getenv("PATH")}, {"XDG_RUNTIME_DIR", serverRun}, {"HOME", e.home}} {
		e.s.MustRun("set-environment", "-g", kv[0], kv[1])
	}
	theirs := daemon.ForEnv(e.s.Socket, func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return serverRun
		}
		return os.Getenv(k)
	})
	t.Cleanup(func() { stopDaemonAt(theirs) })
	e.s.MustRun("run-shell", filepath.Join(binDir, "tma")+` --socket-path "#{socket_path}" daemon --ensure >/dev/null 2>&1`)
	e.s.WaitFor(func() bool { r, _ := daemon.Find(theirs); return r != nil }, "the launcher's daemon")
	out, _, _ := e.tma("doctor")
	for _, want := range []string{
		"daemon:  running (" + theirs.Socket + ")\n",
		"under the tmux server's runtime directory (" + theirs.Dir + "), not this shell's (" + e.paths().Dir + ")",
		"ambient: the daemon drives every cycle",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// TestShellMeetsTheDaemonOfAServerWithoutXDG: the tmux server runs with no
// XDG_RUNTIME_DIR (its daemon lives in tma-<uid> under $TMPDIR) and this
// shell has one: its commands still reach that daemon (reload signals it,
// doctor calls it running with no note), where before they looked only in
// their own runtime directory and found none.
func TestShellMeetsTheDaemonOfAServerWithoutXDG(t *testing.T) {
	e := newEnv(t, "")
	tmp := t.TempDir()
	e.s.MustRun("set-environment", "-gu", "XDG_RUNTIME_DIR")
	for _, kv := range [][2]string{{"PATH", binDir + ":" + os.Getenv("PATH")}, {"TMPDIR", tmp}, {"HOME", e.home}} {
		e.s.MustRun("set-environment", "-g", kv[0], kv[1])
	}
	// The server's daemon dir: no XDG_RUNTIME_DIR, so tma-<uid> under
	// $TMPDIR, which os.TempDir reads from the process's own environment.
	t.Setenv("TMPDIR", tmp)
	theirs := daemon.ForEnv(e.s.Socket, func(string) string { return "" })
	if !strings.HasPrefix(theirs.Dir, tmp) {
		t.Fatalf("the server's daemon dir %s is not under %s", theirs.Dir, tmp)
	}
	t.Cleanup(func() { stopDaemonAt(theirs) })
	e.s.MustRun("run-shell", filepath.Join(binDir, "tma")+` --socket-path "#{socket_path}" daemon --ensure >/dev/null 2>&1`)
	e.s.WaitFor(func() bool { r, _ := daemon.Find(theirs); return r != nil }, "the server's daemon under $TMPDIR")
	e.s.WaitFor(func() bool { h, _ := daemon.Ask(theirs, time.Second); return h != nil }, "the daemon's socket")
	out, errs, code := e.tmaEnv([]string{"TMPDIR=" + tmp}, "reload")
	if code != 0 || !strings.Contains(out, "reloaded the daemon's config") {
		t.Errorf("reload from a shell with its own XDG_RUNTIME_DIR: exit %d\n%s%s", code, out, errs)
	}
	out, _, _ = e.tmaEnv([]string{"TMPDIR=" + tmp}, "doctor")
	if !strings.Contains(out, "daemon:  running ("+theirs.Socket+")\n") || strings.Contains(out, "not this shell's") {
		t.Errorf("doctor from that shell:\n%s", out)
	}
}
