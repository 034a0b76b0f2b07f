package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/fixtures/lab/mock"
)

// labOpenCode is the OpenCode the lab installed from npm into its cache
// (fixtures/lab/run.sh; $TMA_LAB_CACHE, else ~/.cache/tma-lab), at the
// version fixtures/lab/versions.txt pins, and the @opencode-ai/plugin
// package the lab keeps beside it (with any plugin in its config dir
// OpenCode installs that package at start, which hangs offline). The lab
// cache is not part of `make deps`, so this is the lab's opt-in tier:
// skipped unless TMA_LAB=1 (make test names it), and then a missing
// install fails, saying how to get it.
func labOpenCode(t *testing.T) (bin, plugin string) {
	t.Helper()
	if os.Getenv("TMA_LAB") != "1" {
		t.Skip("set TMA_LAB=1 to run against the lab's real OpenCode (fixtures/lab/run.sh opencode -hooks installs it)")
	}
	version := ""
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "lab", "versions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "opencode" {
			version = f[2]
		}
	}
	if version == "" {
		t.Fatal("fixtures/lab/versions.txt names no opencode version")
	}
	cache := os.Getenv("TMA_LAB_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "tma-lab")
	}
	bin = filepath.Join(cache, "npm", "opencode@"+version, "node_modules", ".bin", "opencode")
	plugin = filepath.Join(cache, "npm", "opencode-plugin@"+version)
	for _, p := range []string{bin, filepath.Join(plugin, "node_modules", "@opencode-ai", "plugin", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("no lab OpenCode %s (fixtures/lab/run.sh opencode -hooks only installs it and its plugin package): %v", version, err)
		}
	}
	return bin, plugin
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ocClient talks to the OpenCode server the test started; no proxy.
var ocClient = &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 10 * time.Second}

func ocDo(t *testing.T, method, u, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := ocClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestOpenCodeDismissLive: a question the real OpenCode asks (its
// question tool, called by the lab's mock model on ASKQ) is dismissed
// through tma act dismiss over OpenCode's own server: a real `opencode
// serve` on 127.0.0.1, the process of the test's tmux pane, with tma's
// plugin installed by tma install-hooks. The plugin stamps the server and
// the question's id; after the dismiss the server holds no question, the
// tool reads dismissed, the pane leaves blocked, and a dismiss of the same
// id again is request-gone.
func TestOpenCodeDismissLive(t *testing.T) {
	bin, pluginPkg := labOpenCode(t)
	proj := t.TempDir()
	model := httptest.NewServer(mock.NewServer(mock.Options{Workdir: proj, Log: io.Discard, Fast: true}))
	defer model.Close()

	actLog := filepath.Join(t.TempDir(), "acts.jsonl")
	e := newEnv(t, "[act]\nlog = \""+actLog+"\"\n")
	wireOpenCode(t, e, pluginPkg, model.URL, nil)

	port := strconv.Itoa(freePort(t))
	base := "http://127.0.0.1:" + port
	// The tmux server's environment is the test's: OpenCode gets the test's
	// HOME and XDG dirs, the lab's offline switches, and the built tma-hook
	// on PATH for the plugin to run (tmux gives it TMUX and TMUX_PANE).
	argv := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-c", proj, "-t", "s:"},
		openCodeEnv(e, bin, "serve", "--hostname", "127.0.0.1", "--port", port)...)
	pane, pidText, _ := strings.Cut(strings.TrimSpace(e.s.MustRun(argv...)), " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		t.Fatalf("pane pid %q", pidText)
	}
	// Registered after the tmux server's cleanup, so it runs first: the
	// server this test started ends before the tmux server does.
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})

	// OpenCode's first start migrates its store: generous under load.
	deadline := time.Now().Add(120 * time.Second)
	for {
		resp, err := ocClient.Get(base + "/question")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			out, _ := e.s.Run("capture-pane", "-p", "-t", pane)
			t.Fatalf("opencode serve on %s never answered: %v\n%s", base, err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}

	code, sb := ocDo(t, http.MethodPost, base+"/session", "{}")
	var session struct {
		ID string `json:"id"`
	}
	if code != http.StatusOK || json.Unmarshal(sb, &session) != nil || session.ID == "" {
		t.Fatalf("POST /session: %d %s", code, sb)
	}
	if code, b := ocDo(t, http.MethodPost, base+"/session/"+session.ID+"/prompt_async", `{"parts":[{"type":"text","text":"ASKQ"}]}`); code/100 != 2 {
		t.Fatalf("prompt_async: %d %s", code, b)
	}
	var asked []json.RawMessage
	deadline = time.Now().Add(60 * time.Second)
	for len(asked) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("OpenCode never asked the mock's question (GET /question stayed empty)")
		}
		time.Sleep(200 * time.Millisecond)
		_, b := ocDo(t, http.MethodGet, base+"/question", "")
		_ = json.Unmarshal(b, &asked)
	}
	var q struct {
		ID string `json:"id"`
	}
	if len(asked) != 1 || json.Unmarshal(asked[0], &q) != nil || !strings.HasPrefix(q.ID, "que_") {
		t.Fatalf("pending questions: %s", asked)
	}

	// The plugin's question.asked, through tma-hook: blocked/question, the
	// question's id and the server's address on the pane.
	var o map[string]string
	deadline = time.Now().Add(30 * time.Second)
	for {
		o = e.opts(pane)
		if o["@agent_state"] == "blocked" && o["@agent_detail"] == "question" && o["@agent_question_request"] == q.ID && o["@agent_api_endpoint"] != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin's question.asked never reached the pane (OpenCode holds %s): %v", q.ID, o)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if o["@agent_name"] != "opencode" || strings.TrimRight(o["@agent_api_endpoint"], "/") != base {
		t.Errorf("the pane's stamps: %v, want opencode at %s", o, base)
	}

	out, errs, code := e.tma("act", "dismiss", "--pane", pane, "--dry-run")
	if want := "effect:  api: POST " + base + "/question/" + q.ID + "/reject (opencode server, stamped by the plugin; no keys)"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("dry run: exit %d, want %q\n%s%s", code, want, out, errs)
	}
	r, errs, code := e.actJSON(nil, "dismiss", "--pane", pane)
	if code != 0 || r.Outcome != "replied" || r.Action != "dismiss" {
		t.Fatalf("dismiss: %+v exit %d: %s", r, code, errs)
	}

	// The server reports it gone: no pending question, the tool call
	// failed as dismissed, and its own reject of the id is a 404.
	if _, b := ocDo(t, http.MethodGet, base+"/question", ""); strings.Contains(string(b), q.ID) {
		t.Errorf("OpenCode still lists the question after the dismiss: %s", b)
	}
	var toolState string
	deadline = time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && toolState == "" {
		_, b := ocDo(t, http.MethodGet, base+"/session/"+session.ID+"/message", "")
		var msgs []struct {
			Parts []struct {
				Type  string `json:"type"`
				Tool  string `json:"tool"`
				State struct {
					Status string `json:"status"`
					Error  string `json:"error"`
				} `json:"state"`
			} `json:"parts"`
		}
		_ = json.Unmarshal(b, &msgs)
		for _, m := range msgs {
			for _, p := range m.Parts {
				if p.Type == "tool" && p.Tool == "question" && p.State.Status != "running" && p.State.Status != "pending" {
					toolState = p.State.Status + ": " + p.State.Error
				}
			}
		}
		if toolState == "" {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if !strings.HasPrefix(toolState, "error: ") || !strings.Contains(toolState, "dismissed") {
		t.Errorf("the question tool after the dismiss: %q, want its dismissed error", toolState)
	}
	if code, b := ocDo(t, http.MethodPost, base+"/question/"+q.ID+"/reject", ""); code != http.StatusNotFound {
		t.Errorf("OpenCode's own reject of the dismissed id: %d %s, want 404", code, b)
	}
	// The pane leaves blocked: the plugin's question.rejected, then the
	// turn's end (session.idle).
	e.s.WaitFor(func() bool {
		o = e.opts(pane)
		return o["@agent_state"] == "idle" && o["@agent_question_request"] == ""
	}, "the pane idle with no question after the dismiss")

	// The same question again (a stale event, as the plugin forwards it):
	// the server's list no longer names it, so nothing is posted.
	e.fire(pane, "opencode", "question-asked", `{"hook_event_name":"question-asked","source":"question.asked","session_id":"`+session.ID+
		`","tma_api_endpoint":"`+base+`/","properties":`+string(asked[0])+`}`)
	r, errs, code = e.actJSON(nil, "dismiss", "--pane", pane)
	if code != 3 || r.Outcome != "vanished" || r.reason() != "request-gone" {
		t.Fatalf("dismiss of a question OpenCode no longer holds: %+v exit %d: %s", r, code, errs)
	}
	lines := auditLines(t, actLog)
	if len(lines) != 2 || lines[0]["kind"] != "api" || lines[0]["outcome"] != "replied" || lines[0]["action"] != "dismiss" || lines[1]["kind"] != "api" || lines[1]["reason"] != "request-gone" {
		t.Errorf("act log %v", lines)
	}
}
