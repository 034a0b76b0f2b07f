package integration

import (
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/fixtures/lab/mock"
)

// ocTUI is one OpenCode TUI the test started as the process of its own
// tmux pane, as a user starts it in a terminal.
type ocTUI struct {
	e    *env
	pane string
}

// startOpenCodeTUI sets up the test's HOME as the lab does for OpenCode
// (tma's plugin by install-hooks, the @opencode-ai/plugin package beside
// it, the mock as its only provider, bash and edit asking) once, then
// starts `opencode <args…>` in a new 120×40 window of the test's server.
func startOpenCodeTUI(t *testing.T, e *env, bin, pluginPkg, modelURL, proj string, args ...string) *ocTUI {
	t.Helper()
	ocConfig := filepath.Join(e.home, ".config", "opencode")
	if _, err := os.Stat(filepath.Join(ocConfig, "opencode.json")); err != nil {
		// Bash runs without asking by default.
		wireOpenCode(t, e, pluginPkg, modelURL, map[string]any{"permission": map[string]any{"bash": "ask", "edit": "ask"}})
	}
	argv := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-c", proj, "-t", "s:"},
		openCodeEnv(e, "TERM=tmux-256color", "LANG=C.UTF-8", bin)...)
	argv = append(argv, args...)
	pane, pidText, _ := strings.Cut(strings.TrimSpace(e.s.MustRun(argv...)), " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		t.Fatalf("pane pid %q", pidText)
	}
	e.s.MustRun("resize-window", "-t", pane, "-x", "120", "-y", "40")
	// Registered after the tmux server's cleanup, so it runs first.
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})
	return &ocTUI{e: e, pane: pane}
}

func (o *ocTUI) screen() string {
	out, _ := o.e.s.Run("capture-pane", "-p", "-t", o.pane)
	return out
}

// waitScreen polls the pane's screen for up to d (OpenCode's first start
// migrates its store: generous under load).
func (o *ocTUI) waitScreen(t *testing.T, d time.Duration, what string, cond func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := o.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the OpenCode TUI never showed %s:\n%s", what, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitOpts polls the pane's options for up to d.
func (o *ocTUI) waitOpts(t *testing.T, d time.Duration, what string, cond func(map[string]string) bool) map[string]string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		m := o.e.opts(o.pane)
		if cond(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pane never got %s: %v\n%s", what, m, o.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var (
	ocTUIReady = regexp.MustCompile(`ctrl\+p commands`)
	ocTUIAsk   = regexp.MustCompile(`Permission required`)
)

// prompt types a line into the TUI's input box and submits it once the
// text shows.
func (o *ocTUI) prompt(t *testing.T, text string) {
	t.Helper()
	o.e.s.MustRun("send-keys", "-t", o.pane, "-l", text)
	o.waitScreen(t, 15*time.Second, "the typed "+text, func(s string) bool { return strings.Contains(s, text) })
	o.e.s.MustRun("send-keys", "-t", o.pane, "Enter")
}

// askBash prompts RUNBASH and waits for the permission the mock's shell
// call raises: on the screen, and on the pane as the plugin's
// permission.asked put it there (blocked/permission with its per_ id).
func (o *ocTUI) askBash(t *testing.T) map[string]string {
	t.Helper()
	o.waitScreen(t, 120*time.Second, "its input box", func(s string) bool { return ocTUIReady.MatchString(s) && strings.Contains(s, "Ask anything") })
	o.prompt(t, "RUNBASH")
	o.waitScreen(t, 60*time.Second, "the bash permission", func(s string) bool { return ocTUIAsk.MatchString(s) && strings.Contains(s, "touch probe.txt") })
	return o.waitOpts(t, 30*time.Second, "blocked/permission with the request's id", func(m map[string]string) bool {
		return m["@agent_state"] == "blocked" && m["@agent_detail"] == "permission" && strings.HasPrefix(m["@agent_permission_request"], "per_")
	})
}

// TestOpenCodeTUIApproveLive: tma act approve on the real OpenCode TUI's
// pending bash permission, the TUI run as a user runs it, with tma's plugin
// inside it. OpenCode 1.18.33's TUI serves its API over HTTP only when
// started with --port or --hostname; otherwise the TUI talks to its worker
// in-process (http://opencode.internal) and nothing listens. So:
//
//   - `opencode`: the plugin stamps no @agent_api_endpoint (there is no
//     server to name), approve's dry run says why and the fire presses
//     Enter (outcome sent); the permission leaves the screen and the tool
//     runs.
//   - `opencode --port <free>`: the plugin stamps the server the TUI
//     listens on, approve's dry run names the api arm, the fire posts
//     OpenCode's own `once` (outcome replied, kind api in the act log, no
//     key pressed), the permission leaves the screen, the tool runs, and
//     the server lists no pending permission.
func TestOpenCodeTUIApproveLive(t *testing.T) {
	bin, pluginPkg := labOpenCode(t)
	proj := t.TempDir()
	model := httptest.NewServer(mock.NewServer(mock.Options{Workdir: proj, Log: io.Discard, Fast: true}))
	defer model.Close()
	actLog := filepath.Join(t.TempDir(), "acts.jsonl")
	e := newEnv(t, "[act]\nlog = \""+actLog+"\"\n")

	t.Run("default", func(t *testing.T) {
		o := startOpenCodeTUI(t, e, bin, pluginPkg, model.URL, proj)
		o.waitOpts(t, 120*time.Second, "the plugin's first event (@agent_name opencode)", func(m map[string]string) bool { return m["@agent_name"] == "opencode" })
		m := o.askBash(t)
		if m["@agent_api_endpoint"] != "" {
			t.Fatalf("the TUI without --port serves no HTTP, yet the pane names %q", m["@agent_api_endpoint"])
		}
		out, errs, code := e.tma("act", "approve", "--pane", o.pane, "--dry-run")
		if !strings.Contains(out, "keys: Enter (no opencode server for the api arm") || code != 0 {
			t.Fatalf("dry run: exit %d, want the keys and why\n%s%s", code, out, errs)
		}
		r, errs, code := e.actJSON(nil, "approve", "--pane", o.pane, "--yes")
		if code != 0 || r.Outcome != "sent" {
			t.Fatalf("approve: %+v exit %d: %s", r, code, errs)
		}
		o.waitScreen(t, 60*time.Second, "the tool's run after the approve", func(s string) bool {
			return !ocTUIAsk.MatchString(s) && strings.Contains(s, "Done. The mock tool call finished")
		})
		if _, err := os.Stat(filepath.Join(proj, "probe.txt")); err != nil {
			t.Errorf("the approved touch did not run: %v", err)
		}
		_ = os.Remove(filepath.Join(proj, "probe.txt"))
		e.s.MustRun("kill-pane", "-t", o.pane)
	})
	if t.Failed() {
		return
	}

	t.Run("port", func(t *testing.T) {
		port := strconv.Itoa(freePort(t))
		base := "http://127.0.0.1:" + port
		o := startOpenCodeTUI(t, e, bin, pluginPkg, model.URL, proj, "--port", port)
		m := o.askBash(t)
		if strings.TrimRight(m["@agent_api_endpoint"], "/") != base {
			t.Fatalf("the TUI with --port %s: the pane names %q, want %s", port, m["@agent_api_endpoint"], base)
		}
		id := m["@agent_permission_request"]
		if code, b := ocDo(t, "GET", base+"/permission", ""); code != 200 || !strings.Contains(string(b), id) {
			t.Fatalf("the TUI's server does not list %s: %d %s", id, code, b)
		}
		out, errs, code := e.tma("act", "approve", "--pane", o.pane, "--dry-run")
		if want := "effect:  api: POST " + base + "/permission/" + id + `/reply {"reply":"once"} (opencode server, stamped by the plugin; no keys)`; code != 0 || !strings.Contains(out, want) {
			t.Fatalf("dry run: exit %d, want %q\n%s%s", code, want, out, errs)
		}
		r, errs, code := e.actJSON(nil, "approve", "--pane", o.pane, "--yes")
		if code != 0 || r.Outcome != "replied" {
			t.Fatalf("approve: %+v exit %d: %s", r, code, errs)
		}
		o.waitScreen(t, 60*time.Second, "the tool's run after the approve over the API", func(s string) bool {
			return !ocTUIAsk.MatchString(s) && strings.Contains(s, "Done. The mock tool call finished")
		})
		if _, err := os.Stat(filepath.Join(proj, "probe.txt")); err != nil {
			t.Errorf("the approved touch did not run: %v", err)
		}
		if code, b := ocDo(t, "GET", base+"/permission", ""); code != 200 || strings.Contains(string(b), id) {
			t.Errorf("the server still lists %s after the reply: %d %s", id, code, b)
		}
		o.waitOpts(t, 30*time.Second, "the pane off blocked with no request id", func(m map[string]string) bool {
			return m["@agent_state"] != "blocked" && m["@agent_permission_request"] == ""
		})
	})

	lines := auditLines(t, actLog)
	if len(lines) != 2 || lines[0]["kind"] == "api" || lines[0]["outcome"] != "sent" || lines[1]["kind"] != "api" || lines[1]["outcome"] != "replied" {
		t.Errorf("act log %v", lines)
	}
}
