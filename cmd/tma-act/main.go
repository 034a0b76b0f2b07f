// Command tma-act: see lib/cli/act.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/act"
)

func main() { os.Exit(actcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
