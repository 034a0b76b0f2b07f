// Command tma-notify: see lib/cli/notify.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/notify"
)

func main() { os.Exit(notifycmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
