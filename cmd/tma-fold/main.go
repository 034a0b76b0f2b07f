// Command tma-fold: see lib/cli/fold.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/fold"
)

func main() { os.Exit(foldcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
