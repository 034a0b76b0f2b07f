// Command tma-scan: see lib/cli/scan.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/scan"
)

func main() { os.Exit(scancmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
