// Command tma-scan: see lib/cli/scan.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/scan"
	// Starts the one-shot cycle's list call while the packages above are
	// still being initialized (see the package).
	_ "github.com/tmaproject/tma/lib/tmux/prelist"
)

func main() { os.Exit(scancmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
