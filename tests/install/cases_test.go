package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/install"
)

func TestUsage(t *testing.T) {
	newHome(t)
	must(t, tma(t, "install-hooks"), 2, "name an agent")
	must(t, tma(t, "install-hooks", "nope"), 2, "unknown agent")
	must(t, tma(t, "install-hooks", "claude", "--check", "--uninstall"), 2, "exclusive")
	must(t, tma(t, "install-hooks", "claude", "--all"), 2, "not both")
	must(t, tma(t, "install-hooks", "codex", "--statusline"), 2, "claude and cursor only")
	must(t, tma(t, "install-hooks", "claude", "--wrapper-ref", "home"), 2)
	must(t, tma(t, "install-hooks", "--bogus"), 2)
	must(t, tma(t, "install-hooks", "--help"), 0, "--wrapper-ref", "--claude-settings", "--pi-extension")
	must(t, tma(t, "install-keys", "--check", "--uninstall"), 2, "exclusive")
}

func TestNoTerminalDeclines(t *testing.T) {
	h := newHome(t)
	h.write(".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n")
	r := tma(t, "install-hooks", "claude")
	must(t, r, 1, "tma: proposed change to ~/.claude/settings.json (agent hooks):", "no terminal to confirm on and no --yes")
	if h.read(".claude/settings.json") != "{\n  \"model\": \"opus\"\n}\n" {
		t.Error("declined change written")
	}
	if _, err := os.Stat(h.path(".config/tma/install-state.toml")); err == nil {
		rec, _ := install.LoadRecord(h.path(".config/tma/install-state.toml"))
		if rec.Agents["claude"] != nil {
			t.Error("declined install recorded")
		}
	}
}

func TestBareRefusedWhenNotOnPath(t *testing.T) {
	h := newHome(t)
	t.Setenv("PATH", t.TempDir())
	r := tma(t, "install-hooks", "claude", "--yes")
	must(t, r, 1, "tma: error: tma-hook is not on $PATH")
	if h.read(".claude/settings.json") != "<absent>" {
		t.Error("wrote a config it could not wire")
	}
	// --check names it too.
	must(t, tma(t, "install-hooks", "--check"), 1, "wrapper: tma-hook not on $PATH")
}

func TestAbsoluteAndResolutionNotSpelling(t *testing.T) {
	h := newHome(t)
	must(t, tma(t, "install-hooks", "claude", "--yes", "--wrapper-ref", "absolute"), 0)
	s := h.read(".claude/settings.json")
	if !strings.Contains(s, `"command": "`+h.Hook+` claude Stop"`) {
		t.Fatalf("absolute path not written:\n%s", s)
	}
	// The bare posture checks it clean: the path reaches the same file.
	must(t, tma(t, "install-hooks", "--check"), 0, "hooks OK")
	// A plain install leaves the spelling alone; --all repoints it.
	r := tma(t, "install-hooks", "claude")
	must(t, r, 0, "already installed")
	must(t, tma(t, "install-hooks", "--all", "--yes"), 0, "installed hooks for claude")
	if s := h.read(".claude/settings.json"); strings.Contains(s, h.Hook) || !strings.Contains(s, `"tma-hook claude Stop"`) {
		t.Fatalf("--all did not repoint to the bare name:\n%s", s)
	}
	// A symlink to the wrapper is the same wiring too.
	link := filepath.Join(t.TempDir(), "tma-hook")
	if err := os.Symlink(h.Hook, link); err != nil {
		t.Fatal(err)
	}
	h.write(".claude/settings.json", strings.ReplaceAll(h.read(".claude/settings.json"), `"tma-hook claude`, `"`+link+` claude`))
	must(t, tma(t, "install-hooks", "claude", "--check"), 0, "hooks OK")
}

func TestDrift(t *testing.T) {
	h := newHome(t)
	must(t, tma(t, "install-hooks", "claude", "--yes"), 0)
	other := filepath.Join(t.TempDir(), "elsewhere", "tma-hook")
	writeExec(t, other)
	s := strings.Replace(h.read(".claude/settings.json"), `"tma-hook claude Stop"`, `"`+other+` claude Stop"`, 1)
	s = strings.Replace(s, `"tma-hook claude SessionEnd"`, `"/gone/tma-hook claude SessionEnd"`, 1)
	h.write(".claude/settings.json", s)
	r := tma(t, "install-hooks", "claude", "--check")
	must(t, r, 1, "hook Stop drifted: "+other+" resolves to "+other+", not "+h.Hook, "hook SessionEnd drifted: /gone/tma-hook resolves to nothing")
	r = tma(t, "install-hooks", "claude", "--yes")
	must(t, r, 0, "installed hooks for claude")
	if s := h.read(".claude/settings.json"); strings.Contains(s, other) || strings.Contains(s, "/gone/") {
		t.Fatalf("drift not repaired:\n%s", s)
	}
	must(t, tma(t, "install-hooks", "claude", "--check"), 0, "hooks OK")
	// Removing one event is reported as missing.
	h.write(".claude/settings.json", strings.Replace(h.read(".claude/settings.json"), "PermissionRequest", "Elsewhere", 1))
	must(t, tma(t, "install-hooks", "--check"), 1, "claude: ~/.claude/settings.json: hook PermissionRequest missing")
}

func TestUserHookInSameGroupSurvivesUninstall(t *testing.T) {
	h := newHome(t)
	orig := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "say done"},
          {"type": "command", "command": "tma-hook claude Stop"}
        ]
      }
    ]
  }
}
`
	h.write(".claude/settings.json", orig)
	must(t, tma(t, "install-hooks", "claude", "--yes"), 0)
	if n := strings.Count(h.read(".claude/settings.json"), "tma-hook claude Stop"); n != 1 {
		t.Fatalf("Stop wired %d times", n)
	}
	must(t, tma(t, "install-hooks", "claude", "--uninstall", "--yes"), 0)
	s := h.read(".claude/settings.json")
	if strings.Contains(s, "tma-hook") || !strings.Contains(s, `{"type": "command", "command": "say done"}`) {
		t.Fatalf("uninstall:\n%s", s)
	}
}

func TestCodexNotifyChain(t *testing.T) {
	h := newHome(t)
	chained := "model = \"o3\"\nnotify = [\"computer-use\", \"--previous-notify\", '[\"tma-hook\",\"codex\",\"notify\"]']\n"
	h.write(".codex/config.toml", chained)
	r := tma(t, "install-hooks", "codex", "--yes")
	must(t, r, 0, "codex notify chained through computer-use")
	if h.read(".codex/config.toml") != chained {
		t.Fatal("a working chain was rewritten")
	}
	must(t, tma(t, "install-hooks", "codex", "--check"), 0, "tma: codex: notify chained through computer-use", "hooks OK")
	must(t, tma(t, "install-hooks", "codex", "--uninstall", "--yes"), 0, "still chains tma-hook through computer-use")
	if h.read(".codex/config.toml") != chained {
		t.Fatal("uninstall rewrote another program's notify")
	}

	// A chain naming a wrapper that resolves to nothing: refuse, name the edit.
	h2 := newHome(t)
	stale := "notify = [\"computer-use\", \"--previous-notify\", '[\"/old/tma-hook\",\"codex\",\"notify\"]']\n"
	h2.write(".codex/config.toml", stale)
	r = tma(t, "install-hooks", "codex", "--yes")
	must(t, r, 1, "chained through computer-use", "edit ~/.codex/config.toml by hand")
	if h2.read(".codex/config.toml") != stale {
		t.Fatal("refused chain edited")
	}

	// Another program's notify with no chain: left alone, said so.
	h3 := newHome(t)
	h3.write(".codex/config.toml", "notify = [\"notify-send\", \"codex\"]\n")
	r = tma(t, "install-hooks", "codex", "--yes")
	must(t, r, 0, "codex notify is taken by notify-send")
	must(t, tma(t, "install-hooks", "codex", "--check"), 1, "notify taken by notify-send")
}

func TestCodexHomeAndOverrides(t *testing.T) {
	h := newHome(t)
	ch := filepath.Join(h.Dir, "codexhome")
	t.Setenv("CODEX_HOME", ch)
	alt := filepath.Join(h.Dir, "alt", "settings.json")
	t.Setenv("TMA_GEMINI_SETTINGS", alt)
	must(t, tma(t, "install-hooks", "codex", "--yes"), 0)
	must(t, tma(t, "install-hooks", "gemini", "--yes"), 0)
	pi := filepath.Join(h.Dir, "pi-ext.js")
	must(t, tma(t, "install-hooks", "pi", "--yes", "--pi-extension", pi), 0)
	for _, p := range []string{filepath.Join(ch, "config.toml"), filepath.Join(ch, "hooks.json"), alt, pi} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	st, _ := os.Stat(ch)
	if st.Mode().Perm() != 0o700 {
		t.Errorf("new parent dir mode %v, want 0700", st.Mode().Perm())
	}
	t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(h.Dir, "pidir"))
	must(t, tma(t, "install-hooks", "pi", "--yes"), 0)
	if _, err := os.Stat(filepath.Join(h.Dir, "pidir", "extensions", "tma.js")); err != nil {
		t.Error("PI_CODING_AGENT_DIR not honoured")
	}
}

func TestPluginNotOursIsRefused(t *testing.T) {
	h := newHome(t)
	h.write(".config/opencode/plugin/tma.js", "// my own tma.js\n")
	must(t, tma(t, "install-hooks", "opencode", "--yes"), 1, "was not written by tma")
	must(t, tma(t, "install-hooks", "opencode", "--uninstall", "--yes"), 0, "left alone")
	if h.read(".config/opencode/plugin/tma.js") != "// my own tma.js\n" {
		t.Fatal("a foreign plugin was touched")
	}
}

func TestStatuslineShim(t *testing.T) {
	h := newHome(t)
	orig := "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"~/bin/my-status --short 'x y'\",\n    \"padding\": 0\n  }\n}\n"
	h.write(".claude/settings.json", orig)
	must(t, tma(t, "install-hooks", "claude", "--yes", "--statusline"), 0, "statusline shim")
	s := h.read(".claude/settings.json")
	if !strings.Contains(s, `_TMA_BIN=`) || !strings.Contains(s, `event --agent claude --kind context`) || !strings.Contains(s, `sh -c '~/bin/my-status --short '\\''x y'\\'''`) {
		t.Fatalf("shim:\n%s", s)
	}
	if !strings.Contains(h.read(".config/tma/statusline-state.toml"), `"claude"`) {
		t.Error("opt-in not recorded")
	}
	must(t, tma(t, "install-hooks", "claude", "--check"), 0, "hooks OK")
	must(t, tma(t, "install-hooks", "claude", "--check", "--no-statusline"), 1, "statusline shim present")
	// A plain re-install keeps it.
	must(t, tma(t, "install-hooks", "claude"), 0, "already installed")
	must(t, tma(t, "install-hooks", "claude", "--yes", "--no-statusline"), 0)
	if strings.Contains(h.read(".claude/settings.json"), "_TMA_BIN") {
		t.Fatal("--no-statusline left the shim")
	}
	must(t, tma(t, "install-hooks", "claude", "--uninstall", "--yes"), 0)
	if got := h.read(".claude/settings.json"); got != orig {
		t.Fatalf("not restored:\n%s\nwant\n%s", got, orig)
	}

	// The shim really composes: the user's command still renders, tma gets a copy.
	cmd := install.ShimCommand("/nonexistent/tma", "claude", "cat")
	_, agent, wrapped, ok := install.ParseShim(cmd)
	if !ok || agent != "claude" || wrapped != "cat" {
		t.Fatalf("parse: %v %q %q", ok, agent, wrapped)
	}
	sh := exec.Command("/bin/sh", "-c", install.ShimCommand("/nonexistent/tma", "claude", "tr a-z A-Z; echo ' it''s'"))
	sh.Env = []string{"PATH=/usr/bin:/bin"}
	sh.Stdin = strings.NewReader("hello")
	out, err := sh.Output()
	if err != nil || string(out) != "HELLO its\n" {
		t.Fatalf("the shim does not render the wrapped command: %q %v", out, err)
	}
}

func TestCursorStatuslineFile(t *testing.T) {
	h := newHome(t)
	must(t, tma(t, "install-hooks", "cursor", "--yes"), 0)
	if h.read(".cursor/cli-config.json") != "<absent>" {
		t.Error("cli-config.json created without --statusline")
	}
	must(t, tma(t, "install-hooks", "cursor", "--yes", "--statusline"), 0)
	if !strings.Contains(h.read(".cursor/cli-config.json"), "--agent cursor --kind context") {
		t.Fatal("cursor shim not written")
	}
	must(t, tma(t, "install-hooks", "cursor", "--uninstall", "--yes"), 0)
	for _, f := range []string{".cursor/cli-config.json", ".cursor/hooks.json"} {
		if got := h.read(f); strings.Contains(got, "tma") {
			t.Errorf("%s after uninstall: %s", f, got)
		}
	}
}

func TestAllCoversWiredAgents(t *testing.T) {
	h := newHome(t)
	must(t, tma(t, "install-hooks", "--all", "--yes"), 0, "no agent carries tma wiring")
	must(t, tma(t, "install-hooks", "gemini", "--yes"), 0)
	must(t, tma(t, "install-hooks", "pi", "--yes"), 0)
	r := tma(t, "install-hooks", "--all", "--yes")
	must(t, r, 0, "hooks for gemini already installed", "hooks for pi already installed")
	if strings.Contains(r.stdout, "claude") {
		t.Errorf("--all touched an unwired agent:\n%s", r)
	}
	must(t, tma(t, "install-hooks", "--uninstall", "--all", "--yes"), 0, "uninstalled hooks for gemini", "uninstalled hooks for pi")
	_ = h
}

// TestWrapperNotNamedTmaHook wires every agent through a wrapper whose file
// is not called tma-hook (issue 27 item 20): an entry naming the wrapper
// this install resolved, or the reference the record says it wrote, is
// tma's, so install converges, --check passes, a re-run changes nothing and
// uninstall gives the files back, even when the wrapper is no longer named.
func TestWrapperNotNamedTmaHook(t *testing.T) {
	for _, agent := range install.Names() {
		t.Run(agent, func(t *testing.T) {
			h := newHome(t)
			wrap := filepath.Join(h.Dir, "o", "bin", "tma-hook-wrap")
			writeExec(t, wrap)
			t.Setenv("TMA_WRAPPER_PATH", wrap)
			r := tma(t, "install-hooks", agent, "--yes", "--wrapper-ref", "absolute")
			must(t, r, 0, "tma: installed hooks for "+agent)
			for _, rel := range agentFiles[agent] {
				if s := h.read(rel); !strings.Contains(s, wrap) {
					t.Errorf("%s does not name the wrapper:\n%s", rel, s)
				}
			}
			must(t, tma(t, "install-hooks", agent, "--check", "--wrapper-ref", "absolute"), 0, "tma: hooks OK")
			r = tma(t, "install-hooks", agent, "--wrapper-ref", "absolute")
			must(t, r, 0, "already installed")
			if strings.Contains(r.stdout, "proposed change") {
				t.Errorf("re-install proposed a change:\n%s", r)
			}
			// Uninstall with the wrapper no longer named: the record knows
			// the reference it wrote.
			t.Setenv("TMA_WRAPPER_PATH", "")
			must(t, tma(t, "install-hooks", agent, "--uninstall", "--yes"), 0, "uninstalled hooks for "+agent)
			for _, rel := range agentFiles[agent] {
				if s := h.read(rel); s != "<absent>" {
					t.Errorf("%s left after uninstall:\n%s", rel, s)
				}
			}
		})
	}
}
