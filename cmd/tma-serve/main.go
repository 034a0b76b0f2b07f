// Command tma-serve: see lib/cli/serve.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/serve"
)

func main() { os.Exit(servecmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
