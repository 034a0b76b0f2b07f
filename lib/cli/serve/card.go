package servecmd

import (
	"context"
	"errors"
	"strconv"

	"github.com/tmaproject/tma/lib/card"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/screen"
	"github.com/tmaproject/tma/lib/serve"
	"github.com/tmaproject/tma/lib/tmux"
)

// card reads what one pane waits on: one cycle for its row (the same
// verdict a snapshot reports), then, only for a blocker whose stamps do not
// carry it, the pane's question id and one capture for the screen lane.
func (h *host) card(ctx context.Context, pane string) (*serve.PaneCard, error) {
	snap, err := h.cycle(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range snap.Rows {
		if r.Pane != pane {
			continue
		}
		p := card.Pane{Agent: r.Agent, State: r.State, Detail: deref(r.Detail), PermissionRequest: deref(r.PermissionRequest),
			PendingTool: deref(r.PendingTool), PendingSummary: deref(r.PendingSummary)}
		k := card.KindOf(p.State, p.Detail)
		if k == card.KindNone || (k == card.KindPermission && p.PendingTool != "") {
			return &serve.PaneCard{Row: r, Card: card.Build(p, nil)}, nil
		}
		l := h.rl.Get()
		tc := h.g.Tmux(h.e, l.Config)
		opts, err := tc.PaneOptions(ctx, pane, []string{"pane_height", hook.QuestionOption})
		if errors.Is(err, tmux.ErrPaneGone) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		p.QuestionRequest = opts[hook.QuestionOption]
		caps, err := tc.Capture(ctx, []string{pane})
		if err != nil {
			return nil, err
		}
		var c *card.Capture
		if raw, ok := caps[pane]; ok {
			height, _ := strconv.Atoi(opts["pane_height"])
			c = &card.Capture{Screen: screen.Screen{Raw: raw, Height: height}, Agent: l.Manifests.Get(r.Agent)}
		}
		return &serve.PaneCard{Row: r, Card: card.Build(p, c)}, nil
	}
	return nil, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
