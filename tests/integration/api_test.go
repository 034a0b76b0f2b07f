package integration

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// openCode stands in for OpenCode 1.18.33's server on 127.0.0.1: the
// routes tma act's API lane uses (GET /permission, POST
// /permission/{id}/reply, as its SDK and handlers define them).
type openCode struct {
	mu      sync.Mutex
	pending map[string]bool
	got     []string
}

func (o *openCode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/permission":
		out := []map[string]string{}
		for id := range o.pending {
			out = append(out, map[string]string{"id": id, "sessionID": "ses_1", "permission": "bash"})
		}
		_ = json.NewEncoder(w).Encode(out)
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "permission" && parts[2] == "reply":
		var body struct {
			Reply string `json:"reply"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		if !o.pending[parts[1]] {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"name":"PermissionNotFoundError"}`))
			return
		}
		delete(o.pending, parts[1])
		o.got = append(o.got, parts[1]+" "+body.Reply)
		_, _ = w.Write([]byte("true"))
	default:
		http.NotFound(w, r)
	}
}

func (o *openCode) answers() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.got, ",")
}

// askPermission fires what tma's OpenCode plugin forwards for a
// permission.asked event (the lab's hook log shape), from a server that
// listens at endpoint ("" for one that does not).
func (e *env) askPermission(pane, id, endpoint string) {
	e.t.Helper()
	api := ""
	if endpoint != "" {
		api = `"tma_api_endpoint":"` + endpoint + `",`
	}
	e.fire(pane, "opencode", "permission-required", `{"hook_event_name":"permission-required","source":"permission.asked","session_id":"ses_1",`+api+
		`"properties":{"id":"`+id+`","sessionID":"ses_1","permission":"bash","patterns":["touch probe.txt"],"metadata":{"command":"touch probe.txt"}}}`)
}

// TestOpenCodeAPILane: approve and deny on an OpenCode pane answer over its
// server (the plugin-stamped endpoint, else [api.opencode] api_base), never
// with keys; a request the server no longer holds is vanished/request-gone;
// a server that does not answer is an error, and doctor names it.
func TestOpenCodeAPILane(t *testing.T) {
	oc := &openCode{pending: map[string]bool{"per_1": true}}
	srv := httptest.NewServer(oc)
	defer srv.Close()
	actLog := filepath.Join(t.TempDir(), "acts.jsonl")
	e := newEnv(t, "[act]\nlog = \""+actLog+"\"\n")
	a, keys := e.s.StartRecordingAgent("opencode", claudeIdle)
	e.fire(a.Pane, "opencode", "session-start", `{"hook_event_name":"session-start","source":"session.created","session_id":"ses_1","tma_api_endpoint":"`+srv.URL+`"}`)
	e.askPermission(a.Pane, "per_1", srv.URL)
	if o := e.opts(a.Pane); o["@agent_permission_request"] != "per_1" || o["@agent_api_endpoint"] != srv.URL || o["@agent_state"] != "blocked" {
		t.Fatalf("after permission.asked: %v", o)
	}

	out, _, code := e.tma("act", "approve", "--pane", a.Pane, "--dry-run")
	if code != 0 || !strings.Contains(out, `effect:  api: POST `+srv.URL+`/permission/per_1/reply {"reply":"once"} (opencode server, stamped by the plugin; no keys)`) {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane, "--expect-permission-request", "per_1")
	if code != 0 || r.Outcome != "replied" {
		t.Fatalf("approve: %+v exit %d: %s", r, code, errs)
	}
	if got := oc.answers(); got != "per_1 once" {
		t.Errorf("the server got %q", got)
	}
	e.nothingSent(keys)
	if got := e.s.Option(a.Pane, "@agent_permission_request"); got != "" {
		t.Errorf("the answered request is still on the pane: %q", got)
	}

	// The next prompt, answered at the keyboard before the fire reaches
	// the server: 404, request-gone, exit 3; nothing typed.
	e.askPermission(a.Pane, "per_2", srv.URL)
	r, errs, code = e.actJSON(nil, "deny", "--pane", a.Pane)
	if code != 3 || r.Outcome != "vanished" || r.reason() != "request-gone" {
		t.Fatalf("deny of a request the server lacks: %+v exit %d: %s", r, code, errs)
	}
	e.nothingSent(keys)
	lines := auditLines(t, actLog)
	if len(lines) != 2 || lines[0]["kind"] != "api" || lines[0]["outcome"] != "replied" || lines[1]["kind"] != "api" || lines[1]["reason"] != "request-gone" {
		t.Errorf("act log %v", lines)
	}

	// The server is gone: an error (exit 1), no keys in its place, and
	// doctor flags the pending permission.
	e.askPermission(a.Pane, "per_3", srv.URL)
	srv.Close()
	r, errs, code = e.actJSON(nil, "approve", "--pane", a.Pane)
	if code != 1 || r.Outcome != "error" || !strings.Contains(errs, "does not answer") {
		t.Fatalf("approve with the server down: %+v exit %d: %s", r, code, errs)
	}
	e.nothingSent(keys)
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "api: a pending permission (per_3), and "+srv.URL+" does not answer") {
		t.Errorf("doctor:\n%s", out)
	}
}

// TestOpenCodeAPIBaseAndKeys: with no stamped endpoint, [api.opencode]
// api_base is the server; with neither, approve sends the proven keys and
// the dry run says why.
func TestOpenCodeAPIBaseAndKeys(t *testing.T) {
	oc := &openCode{pending: map[string]bool{"per_9": true}}
	srv := httptest.NewServer(oc)
	defer srv.Close()
	e := newEnv(t, "")
	a, keys := e.s.StartRecordingAgent("opencode", claudeIdle)
	e.fire(a.Pane, "opencode", "session-start", `{"hook_event_name":"session-start","source":"session.created","session_id":"ses_1"}`)
	e.askPermission(a.Pane, "per_9", "")
	out, _, _ := e.tma("act", "approve", "--pane", a.Pane, "--dry-run")
	if !strings.Contains(out, "effect:  keys: Enter (no opencode server for the api arm") {
		t.Fatalf("dry run with no server:\n%s", out)
	}
	if out, _, _ := e.tma("doctor"); !strings.Contains(out, "api: a pending permission (per_9) and no server endpoint") {
		t.Errorf("doctor:\n%s", out)
	}
	if r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane); code != 0 || r.Outcome != "sent" {
		t.Fatalf("approve with no server: %+v exit %d: %s", r, code, errs)
	}
	e.waitSent(keys, "\r")

	// The config names the server: the answer goes there.
	cfg := filepath.Join(e.home, ".config", "tma")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("[api.opencode]\napi_base = \""+srv.URL+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.askPermission(a.Pane, "per_9", "")
	if out, _, _ := e.tma("act", "approve", "--pane", a.Pane, "--dry-run"); !strings.Contains(out, "(opencode server, [api.opencode] api_base; no keys)") {
		t.Fatalf("dry run with api_base:\n%s", out)
	}
	if r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane); code != 0 || r.Outcome != "replied" || oc.answers() != "per_9 once" {
		t.Fatalf("approve over api_base: %+v exit %d: %s (server got %q)", r, code, errs, oc.answers())
	}
	if got := read(t, keys); got != "\r" {
		t.Errorf("keys sent with a server to answer: %q", got)
	}
}
