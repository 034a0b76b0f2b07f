package hook

import (
	"context"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/tmux"
)

// clearAttention retires the attention mark of the pane arrived at and, by
// hook kind, of the pane just left: after-select-pane leaves a pane of the
// same window (its last pane); session-window-changed leaves the active pane
// of the session's previous window. A session switch fires neither, so it
// clears nothing behind it.
func clearAttention(ctx context.Context, e *common.Env, g *common.Globals, pane, kind string) error {
	if !tmux.ValidPaneID(pane) {
		return nil // an unexpanded #{pane_id}, or garbage: nothing to do
	}
	tc := g.Tmux(e, nil)
	tc.Timeout = HookTimeout
	out, _, err := tc.Run(ctx, "", "list-panes", "-s", "-t", pane, "-F",
		"#{pane_id}"+sep+"#{window_id}"+sep+"#{pane_active}"+sep+"#{pane_last}"+sep+"#{window_active}"+sep+"#{window_last_flag}"+sep+"#{@agent_attention}")
	if err != nil {
		return err
	}
	out = strings.ReplaceAll(out, `\037`, sep)
	type row struct{ id, win, active, last, winActive, winLast, attn string }
	var rows []row
	win := ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if len(f) != 7 {
			continue
		}
		r := row{f[0], f[1], f[2], f[3], f[4], f[5], f[6]}
		rows = append(rows, r)
		if r.id == pane {
			win = r.win
		}
	}
	targets := map[string]bool{pane: true}
	for _, r := range rows {
		switch kind {
		case "after-select-pane":
			if r.win == win && r.last == "1" && r.id != pane {
				targets[r.id] = true
			}
		case "session-window-changed":
			if r.winLast == "1" && r.active == "1" && r.win != win {
				targets[r.id] = true
			}
		}
	}
	var lines []string
	for _, r := range rows {
		if targets[r.id] && r.attn != "" {
			l, err := tmux.Write{Pane: r.id, Sets: []tmux.Set{{Name: "@agent_attention", Unset: true}}}.Line()
			if err != nil {
				return err
			}
			lines = append(lines, l)
		}
	}
	_, err = tc.Exec(ctx, lines)
	return err
}
