// Command tma-setup: see lib/cli/setup.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/setup"
)

func main() { os.Exit(setupcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
