package pick

import (
	"io"
	"os/exec"
	"path/filepath"
)

// Tool finds a tma binary the way the dispatcher does: beside the
// dispatcher when it is a path, else on path. "" when there is none.
func Tool(dispatcher, name, path string) string {
	if filepath.IsAbs(dispatcher) {
		if p := executable(filepath.Join(filepath.Dir(dispatcher), name)); p != "" {
			return p
		}
	}
	return lookPath(name, path)
}

// Start runs argv in the background with no terminal (stdin is
// /dev/null): watch's `a` runs the dispatcher's `act --menu` this way, so
// the menu opens while the dashboard keeps drawing. done receives the
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
