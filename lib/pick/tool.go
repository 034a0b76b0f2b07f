package pick

import (
	"io"
	"os/exec"
)

// Start runs argv in the background with no terminal (stdin is
// /dev/null): the surfaces run the dispatcher's `act --menu` this way, so
// watch keeps drawing while the menu opens. done receives the
// exit error once it ends.
func Start(argv, env []string, stderr io.Writer) (done <-chan error, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := make(chan error, 1)
	go func() { c <- cmd.Wait() }()
	return c, nil
}
