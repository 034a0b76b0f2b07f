package servecmd

import (
	"context"
	"errors"
	"os"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/serve"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/transcript"
)

// The pane options a transcript page needs, read in one display-message
// (as tma transcript reads them).
var windowOptions = []string{"pane_current_path", "@agent_name", "@agent_session", "@agent_transcript"}

// window reads one transcript page of a pane on this host, as `tma
// transcript --pane P --json` would.
func (h *host) window(ctx context.Context, w serve.WindowRequest) ([]byte, *serve.Refusal, error) {
	l := h.rl.Get()
	tc := h.g.Tmux(h.e, l.Config)
	opts, err := tc.PaneOptions(ctx, w.Pane, windowOptions)
	if errors.Is(err, tmux.ErrPaneGone) {
		return nil, &serve.Refusal{Code: "no-transcript", Message: "no such pane " + w.Pane}, nil
	}
	if err != nil {
		return nil, nil, errors.New(common.DescribeTmuxError(h.e, tc, err))
	}
	home, _ := os.UserHomeDir()
	if v := h.e.Getenv("HOME"); v != "" {
		home = v
	}
	p := transcript.Pane{ID: w.Pane, Agent: opts["@agent_name"], Session: opts["@agent_session"],
		Transcript: opts["@agent_transcript"], CWD: opts["pane_current_path"]}
	doc, ref := transcript.Read(p, transcript.Env{Home: home, Getenv: h.e.Getenv},
		transcript.Request{Last: w.Last, Before: w.Before, Event: w.Event, Headers: w.Headers})
	if ref != nil {
		return nil, &serve.Refusal{Code: ref.Code, Message: ref.Message}, nil
	}
	b, err := doc.MarshalJSON()
	return b, nil, err
}
