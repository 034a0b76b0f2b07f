// Command tma-hook: see lib/cli/hook.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/hook"
)

func main() { os.Exit(hookcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
