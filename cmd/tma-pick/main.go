// Command tma-pick: see lib/cli/pick.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/pick"
)

func main() { os.Exit(pickcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
