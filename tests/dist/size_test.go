package dist

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The SQLite driver (modernc.org/sqlite and its libc, about 4 MB of each
// binary that links it) is for OpenCode's transcript store, and only
// tma-transcript reads it: tma-serve runs tma-transcript for a window
// frame, and tma-setup takes serve's grammar from its own package. Linked
// into either again, the archive grows by 8 MB (docs/install.md, sizes).
func TestOnlyTranscriptLinksSQLite(t *testing.T) {
	for _, tool := range tools {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./cmd/"+tool)
		cmd.Dir = root(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./cmd/%s: %v", tool, err)
		}
		links := false
		for _, m := range strings.Fields(string(out)) {
			if m == "modernc.org/sqlite" {
				links = true
			}
		}
		if want := tool == "tma-transcript"; links != want {
			t.Errorf("%s links modernc.org/sqlite: %v, want %v", tool, links, want)
		}
	}
}
