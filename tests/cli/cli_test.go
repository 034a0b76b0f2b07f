// Package cli runs the tma-* filters and the dispatcher as programs against
// scripted inputs (testscript), pinning exit codes, key sets and outputs.
package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tmaproject/tma/lib/cli/fold"
	"github.com/tmaproject/tma/lib/cli/pick"
	"github.com/tmaproject/tma/lib/cli/scan"
	"github.com/tmaproject/tma/lib/cli/stamp"
	"github.com/tmaproject/tma/lib/cli/view"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tma-scan":  func() { os.Exit(scan.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-fold":  func() { os.Exit(fold.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-stamp": func() { os.Exit(stamp.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-view":  func() { os.Exit(view.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-pick":  func() { os.Exit(pick.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Setup: func(e *testscript.Env) error {
			e.Setenv("TMA", filepath.Join(root, "shell", "tma"))
			e.Setenv("XDG_CONFIG_HOME", "")
			e.Setenv("TMA_CONFIG", "")
			e.Setenv("TMUX", "")
			e.Setenv("TMA_SOCKET_PATH", "")
			e.Setenv("TMUX_TMPDIR", e.WorkDir)
			return nil
		},
	})
}
