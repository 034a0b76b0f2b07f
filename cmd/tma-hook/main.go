// Command tma-hook: see lib/cli/hook.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/hook"
	// Starts the hook's write client while the packages above are still
	// being initialized (see the package).
	_ "github.com/tmaproject/tma/lib/tmux/prebatch"
)

func main() { os.Exit(hookcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
