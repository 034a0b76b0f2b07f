package serve

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// ReaderResult is what the transcript reader process answered.
type ReaderResult struct {
	Stdout []byte
	Stderr string
	Code   int // its exit code
}

// RunReader runs the transcript reader (tma-transcript beside this binary,
// else PATH's, as the picker's preview finds it) with args and waits for
// it, bounded by ctx. A window page is read by a process of its own rather
// than linked in: the reader brings the pure-Go SQLite driver for
// OpenCode's store, which alone made tma-serve 14 MB (docs/install.md).
// err is only a failure to run it; any exit code is in the result.
func RunReader(ctx context.Context, args []string) (ReaderResult, error) {
	cmd := exec.CommandContext(ctx, readerBin(), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := ReaderResult{Stdout: out.Bytes(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		return r, err
	}
	return r, nil
}

func readerBin() string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "tma-transcript")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return "tma-transcript"
}
