package install

import (
	"fmt"
	"strings"
	"testing"
)

// The file each JSON-configured agent is wired in, and one event install
// wires there (an empty array of it is the user's to keep).
var jsonConfigs = []struct{ agent, rel, event string }{
	{"claude", ".claude/settings.json", "Stop"},
	{"codex", ".codex/hooks.json", "Stop"},
	{"gemini", ".gemini/settings.json", "AfterAgent"},
	{"cursor", ".cursor/hooks.json", "stop"},
}

// byteCases are config files whose bytes an install then an uninstall
// must give back exactly: the user's empty containers (issue 27 item 16),
// CRLF line endings (item 17), blank files, odd spacing. EVENT stands for
// the agent's event.
var byteCases = map[string]string{
	"empty hooks object":        "{\n  \"model\": \"sonnet\",\n  \"hooks\": {}\n}\n",
	"empty event array":         `{"hooks":{"EVENT":[]}}`,
	"empty event array, pretty": "{\n  \"hooks\": {\n    \"EVENT\": []\n  }\n}\n",
	"spaced empty containers":   "{\n  \"hooks\": { \"EVENT\": [ ] },\n  \"x\": 1\n}\n",
	"commented empty hooks":     "{\n  \"hooks\": { /* none yet */ }\n}\n",
	"empty object document":     "{ }\n",
	"newline inside document":   "{\n}\n",
	"blank file":                "\n",
	"zero-byte file":            "",
	"no final newline":          "{\n  \"model\": \"sonnet\"\n}",
	"crlf, tabs":                "{\r\n\t\"model\": \"sonnet\",\r\n\t\"permissions\": {\r\n\t\t\"allow\": []\r\n\t}\r\n}\r\n",
	"crlf, empty hooks":         "{\r\n  \"hooks\": {}\r\n}\r\n",
	"crlf, empty event array":   "{\r\n  \"hooks\": {\r\n    \"EVENT\": []\r\n  }\r\n}\r\n",
	"crlf, no hooks, no final":  "{\r\n  \"model\": \"sonnet\"\r\n}",
}

// TestRoundTripIsByteIdentical installs into each case and uninstalls
// again, for every JSON-configured agent: the file comes back byte for
// byte, and while installed a CRLF file has no bare LF line.
func TestRoundTripIsByteIdentical(t *testing.T) {
	for _, c := range jsonConfigs {
		for name, content := range byteCases {
			t.Run(c.agent+"/"+name, func(t *testing.T) {
				orig := strings.ReplaceAll(content, "EVENT", c.event)
				roundTripBytes(t, c.agent, c.rel, orig)
			})
		}
	}
}

func roundTripBytes(t *testing.T, agent, rel, orig string) {
	t.Helper()
	h := newHome(t)
	h.write(rel, orig)
	must(t, tma(t, "install-hooks", agent, "--yes"), 0, "installed hooks for "+agent)
	got := h.read(rel)
	if !strings.Contains(got, "tma-hook "+agent) {
		t.Fatalf("not wired:\n%s", got)
	}
	if strings.Contains(orig, "\r\n") {
		if bare := strings.Count(got, "\n") - strings.Count(got, "\r\n"); bare > 0 {
			t.Errorf("install wrote %d LF-only lines into a CRLF file:\n%q", bare, got)
		}
	}
	must(t, tma(t, "install-hooks", agent, "--check"), 0, "hooks OK")
	must(t, tma(t, "install-hooks", agent, "--uninstall", "--yes"), 0, "uninstalled hooks for "+agent)
	if got := h.read(rel); got != orig {
		t.Errorf("after uninstall:\n%q\nwant\n%q", got, orig)
	}
}

// TestCodexConfigRoundTripIsByteIdentical: the notify line in config.toml
// goes in with the file's line ending and comes out leaving its bytes.
func TestCodexConfigRoundTripIsByteIdentical(t *testing.T) {
	for i, orig := range []string{
		"", "\n", "# only a comment", "# only a comment\n",
		"model = \"o3\"", "model = \"o3\"\n",
		"model = \"o3\"\r\n[p]\r\nx = 1\r\n", "model = \"o3\"\r\n", "a = 1\r\nmodel = \"o3\"",
		"# c\r\n[p]\r\nx = 1\r\n",
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := newHome(t)
			h.write(".codex/config.toml", orig)
			h.write(".codex/hooks.json", "{}\n")
			must(t, tma(t, "install-hooks", "codex", "--yes"), 0, "installed hooks for codex")
			got := h.read(".codex/config.toml")
			if !strings.Contains(got, "notify = ") {
				t.Fatalf("notify not wired:\n%q", got)
			}
			if strings.Contains(orig, "\r\n") {
				if bare := strings.Count(got, "\n") - strings.Count(got, "\r\n"); bare > 0 {
					t.Errorf("install wrote an LF-only line into a CRLF file: %q", got)
				}
			}
			must(t, tma(t, "install-hooks", "codex", "--uninstall", "--yes"), 0)
			if got := h.read(".codex/config.toml"); got != orig {
				t.Errorf("after uninstall %q, want %q", got, orig)
			}
		})
	}
}

// TestStatuslineRoundTripIsByteIdentical: the command the shim wraps goes
// back spelled as it was (an escape such as \u0026 stays one), through
// --no-statusline and through uninstall, for claude and cursor.
func TestStatuslineRoundTripIsByteIdentical(t *testing.T) {
	for _, c := range []struct{ agent, rel string }{{"claude", ".claude/settings.json"}, {"cursor", ".cursor/cli-config.json"}} {
		t.Run(c.agent, func(t *testing.T) {
			h := newHome(t)
			orig := "{\r\n  \"statusLine\": {\"type\": \"command\", \"command\": \"a \\u0026\\u0026 b \\/ c\"}\r\n}\r\n"
			h.write(c.rel, orig)
			must(t, tma(t, "install-hooks", c.agent, "--yes", "--statusline"), 0)
			if !strings.Contains(h.read(c.rel), "_TMA_BIN") {
				t.Fatalf("no shim:\n%s", h.read(c.rel))
			}
			must(t, tma(t, "install-hooks", c.agent, "--yes", "--no-statusline"), 0)
			line := "  \"statusLine\": {\"type\": \"command\", \"command\": \"a \\u0026\\u0026 b \\/ c\"}"
			if got := h.read(c.rel); !strings.Contains(got, "{\r\n"+line) {
				t.Errorf("--no-statusline gave\n%q\nwant the line %q", got, line)
			}
			must(t, tma(t, "install-hooks", c.agent, "--yes", "--statusline"), 0)
			must(t, tma(t, "install-hooks", c.agent, "--uninstall", "--yes"), 0)
			if got := h.read(c.rel); got != orig {
				t.Errorf("uninstall gave\n%q\nwant\n%q", got, orig)
			}
		})
	}
}
