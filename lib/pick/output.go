package pick

import (
	"context"
	"os/exec"
	"time"
)

// Output runs argv with no terminal and returns what it printed, stdout
// and stderr in the order written (so a refusal on stderr is shown where
// the page would be), within timeout: watch's transcript preview runs
// tma-transcript this way.
func Output(argv, env []string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out) + "(" + argv[0] + " did not answer within " + timeout.String() + ")\n"
	}
	if err != nil && len(out) == 0 {
		return err.Error() + "\n"
	}
	return string(out)
}
