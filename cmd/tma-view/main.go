// Command tma-view: see lib/cli/view.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/view"
)

func main() { os.Exit(viewcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
