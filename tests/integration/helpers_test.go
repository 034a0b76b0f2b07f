package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func fakeAgentBin(t *testing.T, name string) string { return testkit.FakeAgent(t, name) }

func writeScreen(t *testing.T, e *env, screen string) string {
	f := filepath.Join(t.TempDir(), "screen")
	if err := os.WriteFile(f, []byte(screen), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
