// Command tma-transcript: see lib/cli/transcript.
package main

import (
	"os"

	"github.com/tmaproject/tma/lib/cli/transcript"
)

func main() { os.Exit(transcriptcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
