package servecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/serve"
)

// window reads one transcript page of a pane on this host by running `tma
// transcript --pane P --json` (serve.RunReader) on serve's own server and
// config.
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
	res, err := serve.RunReader(ctx, args)
	if err != nil {
		return nil, nil, fmt.Errorf("transcript: %v", err)
	}
	code, out := res.Code, res.Stdout
	switch code {
	case common.ExitOK:
		return bytes.TrimSpace(out), nil, nil
	case common.ExitRefused:
		var doc struct {
			Refusal *serve.Refusal `json:"refusal"`
		}
		if json.Unmarshal(out, &doc) == nil && doc.Refusal != nil && doc.Refusal.Code != "" {
			return nil, doc.Refusal, nil
		}
	case common.ExitVanish:
		return nil, &serve.Refusal{Code: "no-transcript", Message: "no such pane " + w.Pane}, nil
	}
	msg := strings.TrimSpace(res.Stderr)
	if msg == "" {
		msg = "exit " + strconv.Itoa(code)
	}
	return nil, nil, fmt.Errorf("transcript: %s", msg)
}
