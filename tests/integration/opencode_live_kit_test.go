package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// wireOpenCode sets up e's HOME as the lab does for OpenCode: tma's plugin
// by install-hooks, the @opencode-ai/plugin package beside it, and an
// opencode.json whose only provider is the mock model at modelURL; extra
// keys join the config.
func wireOpenCode(t *testing.T, e *env, pluginPkg, modelURL string, extra map[string]any) {
	t.Helper()
	if out, errs, code := e.tma("install-hooks", "opencode", "--yes"); code != 0 {
		t.Fatalf("install-hooks opencode: exit %d\n%s%s", code, out, errs)
	}
	ocConfig := filepath.Join(e.home, ".config", "opencode")
	for _, name := range []string{"node_modules", "package.json", "package-lock.json"} {
		if out, err := exec.Command("cp", "-a", filepath.Join(pluginPkg, name), ocConfig+"/").CombinedOutput(); err != nil {
			t.Fatalf("copy the plugin package: %v: %s", err, out)
		}
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Mock",
			"options": map[string]any{"baseURL": modelURL + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock Model"}},
		}},
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"autoupdate":  false,
		"share":       "disabled",
	}
	for k, v := range extra {
		cfg[k] = v
	}
	cb, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(ocConfig, "opencode.json"), cb, 0o644); err != nil {
		t.Fatal(err)
	}
}

// openCodeEnv is the `env …` that starts OpenCode in a pane of the test's
// tmux server: the test's HOME and XDG dirs, the built tma-hook on PATH
// for the plugin (tmux gives it TMUX and TMUX_PANE), the lab's offline
// switches, then more.
func openCodeEnv(e *env, more ...string) []string {
	return append([]string{"env",
		"HOME=" + e.home, "XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "XDG_DATA_HOME=" + filepath.Join(e.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(e.home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(e.home, ".local", "state"),
		"XDG_RUNTIME_DIR=" + e.run, "TMA_CONFIG=", "PATH=" + binDir + ":" + os.Getenv("PATH"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1"}, more...)
}
