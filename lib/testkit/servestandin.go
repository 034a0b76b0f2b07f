package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ServeStandIn writes an executable stand-in for `tma serve --stdio` and
// returns its path: a sh loop reading one frame a line, taking the frame's
// "id", and answering by the first of arms that matches the line. Each arm
// is a sh case arm without its ;; (`*'"t":"hello"'*) printf '…%s…\n' "$id"`),
// so a test writes only the frames it answers, as the real serve would.
func ServeStandIn(t testing.TB, arms ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\nwhile read -r line; do\n")
	b.WriteString(`  id=$(printf '%s' "$line" | sed 's/.*"id":"\([^"]*\)".*/\1/')` + "\n")
	b.WriteString("  case \"$line\" in\n")
	for _, a := range arms {
		b.WriteString("  " + a + " ;;\n")
	}
	b.WriteString("  esac\ndone\n")
	p := filepath.Join(t.TempDir(), "serve")
	if err := os.WriteFile(p, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
