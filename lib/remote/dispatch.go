package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tmaproject/tma/lib/config"
)

// Fire is one act request for a remote pane.
type Fire struct {
	Action string
	Pane   string
	Slot   string // "" lets the host name one
	Text   *string
}

// Receipt is the host's answer to a dispatch: the outcome of its broker's
// fire, or the refusal its scope gate made before any.
type Receipt struct {
	Slot     string  `json:"slot"`
	Pane     string  `json:"pane"`
	Action   string  `json:"action"`
	Device   string  `json:"device"`
	Outcome  string  `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Reason   *string `json:"reason"`
	Cached   bool    `json:"cached"`
}

// FireGrace is how long a fire may take beyond the connection's timeout:
// the host's broker waits for the pane lock and re-reads the pane before it
// sends anything.
const FireGrace = 30 * time.Second

// Dispatch sends one act request to r's serve and returns its receipt.
func Dispatch(ctx context.Context, r config.Remote, version string, f Fire) (Receipt, error) {
	req := map[string]any{"schema": 1, "id": "2", "t": "dispatch", "action": f.Action, "pane": f.Pane}
	if f.Slot != "" {
		req["slot"] = f.Slot
	}
	if f.Text != nil {
		req["text"] = *f.Text
	}
	line, err := json.Marshal(req)
	if err != nil {
		return Receipt{}, err
	}
	var rc Receipt
	err = exchange(ctx, r, r.Timeout()+FireGrace, version, string(line), func(out io.Reader) error {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var fr struct {
				ID      string `json:"id"`
				T       string `json:"t"`
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &fr) != nil {
				return fmt.Errorf("not a serve frame: %s", clip(sc.Text()))
			}
			switch {
			case fr.T == "error":
				return &RefusedError{fr.Code, fr.Message}
			case fr.T == "receipt" && fr.ID == "2":
				return json.Unmarshal(sc.Bytes(), &rc)
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%w before a receipt", errEnded)
	})
	return rc, err
}
