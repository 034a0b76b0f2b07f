package servecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/serve"
)

// window reads one transcript page of a pane on this host by running `tma
// transcript --pane P --json` (tma-transcript beside this binary, else
// PATH's) on serve's own server and config. The reader is a process of its
// own rather than linked in: it brings the pure-Go SQLite driver for
// OpenCode's store, which alone made tma-serve 14 MB (docs/install.md).
func (h *host) window(ctx context.Context, w serve.WindowRequest) ([]byte, *serve.Refusal, error) {
	args := append(h.globalArgs(), "transcript", "--pane="+w.Pane, "--json", "--last="+strconv.Itoa(w.Last))
	if w.Before != "" {
		args = append(args, "--before="+w.Before)
	}
	if w.Event != "" {
		args = append(args, "--event="+w.Event)
	}
	if w.Headers {
		args = append(args, "--headers")
	}
	cmd := exec.CommandContext(ctx, transcriptBin(), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return nil, nil, fmt.Errorf("transcript: %v", err)
	}
	switch code {
	case common.ExitOK:
		return bytes.TrimSpace(out.Bytes()), nil, nil
	case common.ExitRefused:
		var doc struct {
			Refusal *serve.Refusal `json:"refusal"`
		}
		if json.Unmarshal(out.Bytes(), &doc) == nil && doc.Refusal != nil && doc.Refusal.Code != "" {
			return nil, doc.Refusal, nil
		}
	case common.ExitVanish:
		return nil, &serve.Refusal{Code: "no-transcript", Message: "no such pane " + w.Pane}, nil
	}
	msg := strings.TrimSpace(errb.String())
	if msg == "" {
		msg = "exit " + strconv.Itoa(code)
	}
	return nil, nil, fmt.Errorf("transcript: %s", msg)
}

// transcriptBin is the tma-transcript installed with this tma-serve, else
// PATH's (as the picker's preview finds it).
func transcriptBin() string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "tma-transcript")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return "tma-transcript"
}
