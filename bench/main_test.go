package bench

import (
	"os"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBuilt()
	os.Exit(code)
}
