package bench

import (
	"fmt"
	"os"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func TestMain(m *testing.M) {
	// BenchmarkProcess runs this binary as the rusage wrapper of the stages
	// it measures for peak RSS.
	if log := os.Getenv("TMA_BENCH_RUSAGE"); log != "" {
		os.Exit(rusageWrap(log, os.Args[1:]))
	}
	code := m.Run()
	testkit.RemoveBuilt()
	fmt.Print(processSummary())
	os.Exit(code)
}
