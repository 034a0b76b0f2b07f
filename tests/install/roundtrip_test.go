package install

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Configs holding unrelated keys (and, for TOML, comments) the installer
// must leave byte for byte.
var seeds = map[string]map[string]string{
	"claude": {
		".claude/settings.json": `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(ls:*)"]
  },
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "env": {"FOO": "bar"}
}
`,
	},
	"codex": {
		".codex/config.toml": `# my codex config
model = "o3"   # the model
approval_policy = "on-request"

# providers below
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:9" # keep me
`,
		".codex/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}
`,
	},
	"gemini": {
		".gemini/settings.json": `{
    "general": {
        "disableAutoUpdate": true
    },
    "privacy": {"usageStatisticsEnabled": false}
}
`,
	},
	"cursor": {
		".cursor/hooks.json": `{
  "version": 1,
  "hooks": {
    "stop": [
      {
        "command": "./audit.sh"
      }
    ]
  }
}
`,
	},
	"opencode": {},
	"pi":       {},
	"qwen": {
		".qwen/settings.json": `{
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "qwen3-coder-plus"}
}
`,
	},
	"copilot": {
		".copilot/settings.json": `{
  "banner": "never",
  "hooks": {
    "agentStop": [
      {
        "type": "command",
        "bash": "./audit.sh"
      }
    ]
  }
}
`,
	},
}

// createdFiles are the files install creates for an agent in an empty HOME.
var agentFiles = map[string][]string{
	"claude":   {".claude/settings.json"},
	"codex":    {".codex/config.toml", ".codex/hooks.json"},
	"gemini":   {".gemini/settings.json"},
	"cursor":   {".cursor/hooks.json"},
	"opencode": {".config/opencode/plugin/tma.js"},
	"pi":       {".pi/agent/extensions/tma.js"},
	"qwen":     {".qwen/settings.json"},
	"copilot":  {".copilot/settings.json"},
}

func TestRoundTripSeeded(t *testing.T) {
	for agent, files := range seeds {
		t.Run(agent, func(t *testing.T) { roundTrip(t, agent, files) })
	}
}

func TestRoundTripEmptyHome(t *testing.T) {
	for agent := range seeds {
		t.Run(agent, func(t *testing.T) { roundTrip(t, agent, nil) })
	}
}

func roundTrip(t *testing.T, agent string, files map[string]string) {
	h := newHome(t)
	for rel, content := range files {
		h.write(rel, content)
	}
	before := map[string]string{}
	for _, rel := range agentFiles[agent] {
		before[rel] = h.read(rel)
	}

	r := tma(t, "install-hooks", agent, "--yes")
	must(t, r, 0, "tma: proposed change to ~/", "tma: installed hooks for "+agent)
	for _, rel := range agentFiles[agent] {
		got := h.read(rel)
		if got == "<absent>" {
			t.Fatalf("%s not written", rel)
		}
		if !strings.Contains(got, "tma-hook") {
			t.Errorf("%s carries no tma-hook:\n%s", rel, got)
		}
		if strings.HasSuffix(rel, ".json") {
			var v any
			if err := json.Unmarshal([]byte(got), &v); err != nil {
				t.Errorf("%s is not valid JSON: %v\n%s", rel, err, got)
			}
		}
		if before[rel] == "<absent>" {
			st, _ := os.Stat(h.path(rel))
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s created with mode %v, want 0600", rel, st.Mode().Perm())
			}
		}
	}
	// Every unrelated line of the seeds survives the install (a one-line
	// document is edited inside its line: the round trip below covers it).
	for rel, content := range files {
		got := h.read(rel)
		if strings.Count(content, "\n") <= 1 {
			if !strings.Contains(got, `"command": "echo hi"`) {
				t.Errorf("%s lost the user's hook:\n%s", rel, got)
			}
			continue
		}
		for _, line := range strings.Split(content, "\n") {
			if strings.TrimSpace(line) != "" && !strings.Contains(got, strings.TrimRight(line, ",")) {
				t.Errorf("%s lost the line %q", rel, line)
			}
		}
	}
	if agent == "codex" {
		cfg := h.read(".codex/config.toml")
		if !strings.Contains(cfg, `notify = ["tma-hook", "codex", "notify"]`) {
			t.Errorf("codex notify not wired:\n%s", cfg)
		}
		if i, j := strings.Index(cfg, "notify ="), strings.Index(cfg, "["); j >= 0 && i > j && strings.Contains(cfg, "[model_providers") && i > strings.Index(cfg, "[model_providers") {
			t.Errorf("notify after the first table:\n%s", cfg)
		}
		must(t, r, 0, "codex trust gate")
	}
	if agent == "gemini" {
		must(t, r, 0, "gemini folder-trust gate")
		if strings.Contains(h.read(".gemini/settings.json"), "Model") {
			t.Error("gemini wired a per-chunk model event")
		}
	}

	// Check passes; a second install changes nothing and writes nothing.
	must(t, tma(t, "install-hooks", agent, "--check"), 0, "tma: hooks OK")
	must(t, tma(t, "install-hooks", "--check"), 0, "tma: hooks OK")
	snap := map[string]string{}
	for _, rel := range agentFiles[agent] {
		snap[rel] = h.read(rel)
	}
	r = tma(t, "install-hooks", agent)
	must(t, r, 0, "already installed")
	if strings.Contains(r.stdout, "proposed change") {
		t.Errorf("re-install proposed a change:\n%s", r)
	}
	for rel, s := range snap {
		if h.read(rel) != s {
			t.Errorf("re-install rewrote %s", rel)
		}
	}

	// Uninstall gives back the original bytes (or no file at all).
	must(t, tma(t, "install-hooks", agent, "--uninstall", "--yes"), 0, "uninstalled hooks for "+agent)
	for _, rel := range agentFiles[agent] {
		if got := h.read(rel); got != before[rel] {
			t.Errorf("%s after uninstall:\n%s\nwant:\n%s", rel, got, before[rel])
		}
	}
	r = tma(t, "install-hooks", agent, "--check")
	must(t, r, 1, "tma: hook wiring incomplete:", "run `tma install-hooks <agent>` to reinstall")
}
