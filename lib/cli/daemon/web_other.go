//go:build !linux

package daemoncmd

import "syscall"

func webChild() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
