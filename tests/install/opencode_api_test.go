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
// it forwards: the server's address rides it only when the command line
// says OpenCode listens (--port, --hostname, serve), since serverUrl names
// a placeholder otherwise.
func TestOpenCodePluginEndpoint(t *testing.T) {
	node := testkit.Need(t, "node")
	h := newHome(t)
	must(t, tma(t, "install-hooks", "opencode", "--yes"), 0)
	plugin := filepath.Join(t.TempDir(), "tma.mjs")
	if err := os.WriteFile(plugin, []byte(h.read(".config/opencode/plugin/tma.js")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--port", "4242"}, "http://127.0.0.1:4242/"},
		{[]string{"serve"}, "http://127.0.0.1:4242/"},
		{[]string{}, ""},
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
await m.TmaPlugin({ serverUrl: new URL("http://127.0.0.1:4242") });`
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
			t.Errorf("argv %v: payload %v, want endpoint %q", c.argv, payload, c.want)
		}
	}
}

func must2(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
