//go:build !linux

package serve

import "os/exec"

// stageAttr has no portable form outside Linux; a stage ends when its
// output pipe loses its reader (the daemon) or its lifeline check fails.
func stageAttr(cmd *exec.Cmd) {}
