// Command tma-wait: see lib/cli/wait.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/wait"
)

func main() { os.Exit(waitcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
