package serve

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
)

// webRetry is how long the daemon waits before starting a web face that
// ended on its own again.
const webRetry = 5 * time.Second

// HostWeb runs `tma-serve serve --http` for as long as ctx (the daemon)
// lives: [serve.http] enabled = true. Its output goes to the daemon's log,
// each line named "web". A refusal (exit 2: a non-loopback listen without
// TLS) is not retried; any other end is, after webRetry. The child is
// stopped with SIGTERM, and dies with a daemon killed outright (the
// stages' parent-death signal).
func HostWeb(ctx context.Context, log *Log, args, env []string) {
	exe := daemon.FindTool("tma-serve")
	for {
		cmd := exec.Command(exe, append(append([]string{}, args...), "serve", "--http")...)
		cmd.Env = env
		out := &lineWriter{log: log, name: "web"}
		cmd.Stdout, cmd.Stderr = out, out
		stageAttr(cmd)
		if err := cmd.Start(); err != nil {
			log.Printf("web face: %v", err)
			return
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
			return
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 2 {
			log.Printf("web face refused to start (exit 2); fix [serve.http] and reload or restart the daemon")
			return
		}
		log.Printf("web face ended (%v); starting it again in %s", err, webRetry)
		select {
		case <-ctx.Done():
			return
		case <-time.After(webRetry):
		}
	}
}
