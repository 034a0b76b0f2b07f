package install

import (
	"os"
	"path/filepath"
	"strings"
)

// Env is what the installer reads from the process.
type Env struct {
	Getenv func(string) string
	// Self is the running binary; tma and tma-hook are looked for beside it.
	Self string
	// Flags holds path overrides given on the command line, by PathKey.
	Flags map[string]string
}

// Home is $HOME ("" when unset).
func (e Env) Home() string { return e.Getenv("HOME") }

// ConfigDir is tma's own config dir: TMA_CONFIG_DIR, else
// $XDG_CONFIG_HOME/tma (an absolute one), else ~/.config/tma.
func (e Env) ConfigDir() string {
	if d := e.Getenv("TMA_CONFIG_DIR"); d != "" {
		return d
	}
	if x := e.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "tma")
	}
	return filepath.Join(e.Home(), ".config", "tma")
}

// PathKey names one overridable path.
type PathKey string

// The overridable paths. Each has a flag (--<key>) and a variable.
const (
	ClaudeSettings  PathKey = "claude-settings"
	CodexConfig     PathKey = "codex-config"
	CodexHooks      PathKey = "codex-hooks"
	GeminiSettings  PathKey = "gemini-settings"
	OpencodePlugin  PathKey = "opencode-plugin"
	CursorHooks     PathKey = "cursor-hooks"
	CursorCLIConfig PathKey = "cursor-cli-config"
	PiExtension     PathKey = "pi-extension"
	QwenSettings    PathKey = "qwen-settings"
	CopilotSettings PathKey = "copilot-settings"
)

// PathKeys lists every key, in documentation order.
var PathKeys = []PathKey{ClaudeSettings, CodexConfig, CodexHooks, GeminiSettings, OpencodePlugin, CursorHooks, CursorCLIConfig, PiExtension, QwenSettings, CopilotSettings}

// Var is the environment variable for a key: TMA_ and the key in capitals.
func (k PathKey) Var() string {
	return "TMA_" + strings.ToUpper(strings.ReplaceAll(string(k), "-", "_"))
}

// Path resolves one config path: the flag, then the variable, then the
// agent's own default (which honours CLAUDE_CONFIG_DIR, CODEX_HOME,
// XDG_CONFIG_HOME and PI_CODING_AGENT_DIR).
func (e Env) Path(k PathKey) string {
	if v := e.Flags[string(k)]; v != "" {
		return e.expand(v)
	}
	if v := e.Getenv(k.Var()); v != "" {
		return e.expand(v)
	}
	home := e.Home()
	codex := func() string {
		if d := e.Getenv("CODEX_HOME"); d != "" {
			return e.expand(d)
		}
		return filepath.Join(home, ".codex")
	}
	switch k {
	case ClaudeSettings:
		if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(e.expand(d), "settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json")
	case CodexConfig:
		return filepath.Join(codex(), "config.toml")
	case CodexHooks:
		return filepath.Join(codex(), "hooks.json")
	case GeminiSettings:
		return filepath.Join(home, ".gemini", "settings.json")
	case OpencodePlugin:
		base := filepath.Join(home, ".config")
		if x := e.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
			base = x
		}
		return filepath.Join(base, "opencode", "plugin", "tma.js")
	case CursorHooks:
		return filepath.Join(home, ".cursor", "hooks.json")
	case CursorCLIConfig:
		return filepath.Join(home, ".cursor", "cli-config.json")
	case QwenSettings:
		return filepath.Join(home, ".qwen", "settings.json")
	case CopilotSettings:
		// Copilot CLI keeps its config under $COPILOT_HOME (default ~/.copilot).
		if d := e.Getenv("COPILOT_HOME"); d != "" {
			return filepath.Join(e.expand(d), "settings.json")
		}
		return filepath.Join(home, ".copilot", "settings.json")
	case PiExtension:
		if d := e.Getenv("PI_CODING_AGENT_DIR"); d != "" {
			return filepath.Join(e.expand(d), "extensions", "tma.js")
		}
		return filepath.Join(home, ".pi", "agent", "extensions", "tma.js")
	}
	return ""
}

// expand resolves a leading ~/ and makes the path absolute.
func (e Env) expand(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(e.Home(), p[1:])
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// Pretty shows a path with $HOME as ~.
func (e Env) Pretty(p string) string {
	h := e.Home()
	if h != "" && h != "/" && strings.HasPrefix(p, h+"/") {
		return "~" + p[len(h):]
	}
	return p
}

// LookPath finds an executable file named name on $PATH, as execvp would.
func (e Env) LookPath(name string) string {
	for _, dir := range filepath.SplitList(e.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if isExec(p) {
			if a, err := filepath.Abs(p); err == nil {
				return a
			}
			return p
		}
	}
	return ""
}

// IsExec reports an executable regular file.
func IsExec(p string) bool { return isExec(p) }

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
