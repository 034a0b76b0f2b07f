// Command tma-daemon: see lib/cli/daemon.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/daemon"
)

func main() { os.Exit(daemoncmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
