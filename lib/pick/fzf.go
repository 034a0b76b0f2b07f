package pick

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MinMajor and MinMinor are the oldest fzf the surfaces accept: 0.65 (the
// pinned build is 0.65.2; older fzf lacks actions the surfaces bind).
const (
	MinMajor = 0
	MinMinor = 65
	// Pinned is what `make install` builds beside tma.
	Pinned = "github.com/junegunn/fzf@v0.65.2"
)

// Fzf is an fzf binary found on this machine.
type Fzf struct {
	Path    string
	Version string
}

// ErrNoFzf means no usable fzf was found; the error text says how to fix it.
var ErrNoFzf = errors.New("no usable fzf")

// Find returns the fzf to run: the user's own on $PATH when it is at least
// 0.65, else the one installed beside tma's binaries (make install builds
// the pinned one there), else the user's older one is refused. beside is
// the directory of the running binary.
func Find(path, beside string) (*Fzf, error) {
	var old *Fzf
	try := func(p string) *Fzf {
		if p == "" {
			return nil
		}
		v, err := Version(p)
		if err != nil {
			return nil
		}
		f := &Fzf{Path: p, Version: v}
		if NewEnough(v) {
			return f
		}
		if old == nil {
			old = f
		}
		return nil
	}
	if f := try(lookPath("fzf", path)); f != nil {
		return f, nil
	}
	if beside != "" {
		if f := try(executable(filepath.Join(beside, "fzf"))); f != nil {
			return f, nil
		}
	}
	if old != nil {
		return nil, fmt.Errorf("%w: %s is fzf %s, tma needs %d.%d or newer\nhint: `make install` builds fzf 0.65.2 beside tma (or: go install %s)", ErrNoFzf, old.Path, old.Version, MinMajor, MinMinor, Pinned)
	}
	return nil, fmt.Errorf("%w: fzf is not installed\nhint: `make install` builds fzf 0.65.2 beside tma (or: go install %s)", ErrNoFzf, Pinned)
}

// Version asks an fzf binary for its version ("0.65.2").
func Version(p string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "--version").Output()
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "", errors.New("empty version")
	}
	return f[0], nil
}

// NewEnough reports whether a version string is 0.65 or newer.
func NewEnough(v string) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return major > MinMajor || major == MinMajor && minor >= MinMinor
}

func executable(p string) string {
	st, err := os.Stat(p)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if p := executable(filepath.Join(dir, name)); p != "" {
			return p
		}
	}
	return ""
}

// Run executes fzf with args and env, feeding it stdin; its UI is on the
// terminal (fzf opens /dev/tty itself). It returns fzf's stdout and exit
// code: 0 picked, 1 no match, 130 interrupted or aborted.
func (f *Fzf) Run(args, env []string, stdin io.Reader, stderr io.Writer) (string, int, error) {
	cmd := exec.Command(f.Path, args...)
	cmd.Env = env
	cmd.Stdin = stdin
	cmd.Stderr = stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return "", -1, err
	}
	return out.String(), 0, nil
}
