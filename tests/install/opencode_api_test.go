package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// TestOpenCodePluginEndpoint loads the installed OpenCode plugin in node,
// as OpenCode would (its input carries serverUrl), and reads the payload
// it forwards: the server's address rides it when OpenCode listens. The
// command line says so for serve and a TUI's --port/--hostname; inside
// the TUI's worker (OpenCode 1.18.33 loads plugins there, its argv the
// worker's own) the address decides: OpenCode's placeholder
// http://localhost:4096/ when nothing listens, the real one with --port
// (both read from the real TUI in the lab, docs/actions.md).
func TestOpenCodePluginEndpoint(t *testing.T) {
	node := testkit.Need(t, "node")
	h := newHome(t)
	must(t, tma(t, "install-hooks", "opencode", "--yes"), 0)
	plugin := filepath.Join(t.TempDir(), "tma.mjs")
	if err := os.WriteFile(plugin, []byte(h.read(".config/opencode/plugin/tma.js")), 0o600); err != nil {
		t.Fatal(err)
	}
	const worker = "/$bunfs/root/src/cli/tui/worker.js"
	for _, c := range []struct {
		argv      []string
		url, want string
	}{
		{[]string{"--port", "4242"}, "http://127.0.0.1:4242", "http://127.0.0.1:4242/"},
		{[]string{"serve"}, "http://127.0.0.1:4242", "http://127.0.0.1:4242/"},
		{[]string{"serve", "--hostname", "localhost"}, "http://localhost:4096", "http://localhost:4096/"},
		{[]string{worker}, "http://127.0.0.1:4123/", "http://127.0.0.1:4123/"},
		{[]string{worker}, "http://localhost:4096/", ""},
		{[]string{}, "http://localhost:4096/", ""},
	} {
		dir := t.TempDir()
		// The plugin runs the wrapper by name: a stand-in on PATH that keeps
		// the payload.
		hook := filepath.Join(dir, "tma-hook")
		if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >\""+dir+"/payload-$$\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(c.argv)
		js := `process.argv.push(...` + string(args) + `);
const m = await import(` + string(must2(json.Marshal(plugin))) + `);
await m.TmaPlugin({ serverUrl: new URL(` + string(must2(json.Marshal(c.url))) + `) });`
		cmd := exec.Command(node, "--input-type=module", "-e", js)
		cmd.Env = append(os.Environ(), "PATH="+dir+":/usr/bin:/bin", "TMUX_PANE=%1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		var payload map[string]any
		deadline := time.Now().Add(10 * time.Second)
		for payload == nil && time.Now().Before(deadline) {
			files, _ := filepath.Glob(filepath.Join(dir, "payload-*"))
			for _, f := range files {
				b, _ := os.ReadFile(f)
				if json.Unmarshal(b, &payload) != nil {
					payload = nil
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if payload == nil {
			t.Fatalf("%v: the plugin forwarded nothing", c.argv)
		}
		got, _ := payload["tma_api_endpoint"].(string)
		if got != c.want || payload["hook_event_name"] != "session-start" || !strings.HasPrefix(payload["source"].(string), "load") {
			t.Errorf("argv %v, serverUrl %s: payload %v, want endpoint %q", c.argv, c.url, payload, c.want)
		}
	}
}

func must2(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
