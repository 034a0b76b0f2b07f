// Command tma-stamp: see lib/cli/stamp.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/stamp"
)

func main() { os.Exit(stampcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
