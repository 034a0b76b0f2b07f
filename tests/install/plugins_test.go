package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// The rendered plugin and extension are valid ES modules naming the wrapper
// and the manifest's events (checked with node when it is installed).
func TestPluginsParse(t *testing.T) {
	node := testkit.Need(t, "node")
	h := newHome(t)
	must(t, tma(t, "install-hooks", "opencode", "--yes"), 0)
	must(t, tma(t, "install-hooks", "pi", "--yes"), 0)
	for agent, rel := range map[string]string{"opencode": ".config/opencode/plugin/tma.js", "pi": ".pi/agent/extensions/tma.js"} {
		src := h.read(rel)
		if !strings.Contains(src, `const TMA_HOOK = "tma-hook";`) {
			t.Errorf("%s: wrapper reference missing", agent)
		}
		for _, ev := range map[string][]string{
			"opencode": {`"session-start"`, `"user-prompt-submit"`, `"permission-required"`, `"stop"`, `"permission.asked"`, `"session.idle"`},
			"pi":       {`"session_start"`, `"before_agent_start"`, `"tool_execution_start"`, `"agent_settled"`, `"session_shutdown"`},
		}[agent] {
			if !strings.Contains(src, ev) {
				t.Errorf("%s: %s not forwarded", agent, ev)
			}
		}
		mjs := filepath.Join(t.TempDir(), agent+".mjs")
		os.WriteFile(mjs, []byte(src), 0o600)
		if out, err := exec.Command(node, "--check", mjs).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v\n%s", agent, err, out)
		}
	}
}
