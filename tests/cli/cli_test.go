// Package cli runs the tma-* filters and the dispatcher as programs against
// scripted inputs (testscript), pinning exit codes, key sets and outputs.
package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tmaproject/tma/lib/cli/act"
	"github.com/tmaproject/tma/lib/cli/daemon"
	"github.com/tmaproject/tma/lib/cli/fold"
	"github.com/tmaproject/tma/lib/cli/hook"
	"github.com/tmaproject/tma/lib/cli/notify"
	"github.com/tmaproject/tma/lib/cli/pick"
	"github.com/tmaproject/tma/lib/cli/scan"
	"github.com/tmaproject/tma/lib/cli/serve"
	"github.com/tmaproject/tma/lib/cli/setup"
	"github.com/tmaproject/tma/lib/cli/stamp"
	"github.com/tmaproject/tma/lib/cli/view"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tma-scan":   func() { os.Exit(scancmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-fold":   func() { os.Exit(foldcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-stamp":  func() { os.Exit(stampcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-view":   func() { os.Exit(viewcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-pick":   func() { os.Exit(pickcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-act":    func() { os.Exit(actcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-setup":  func() { os.Exit(setupcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-serve":  func() { os.Exit(servecmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-hook":   func() { os.Exit(hookcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-notify": func() { os.Exit(notifycmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"tma-daemon": func() { os.Exit(daemoncmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	testscript.Run(t, testscript.Params{
		Dir:  "testdata",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": exits},
		Setup: func(e *testscript.Env) error {
			e.Setenv("TMA", filepath.Join(root, "shell", "tma"))
			e.Setenv("XDG_CONFIG_HOME", "")
			e.Setenv("TMA_CONFIG", "")
			e.Setenv("TMUX", "")
			e.Setenv("TMA_SOCKET_PATH", "")
			e.Setenv("TMUX_TMPDIR", e.WorkDir)
			e.Setenv("XDG_RUNTIME_DIR", filepath.Join(e.WorkDir, "run")) // the act --slot ledger
			return nil
		},
	})
}

// exits N prog args... runs a program and requires exit status N (where
// `! exec` only knows non-zero): the usage-error band is a contract.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
