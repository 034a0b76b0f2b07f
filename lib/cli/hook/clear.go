package hookcmd

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"

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
	// Every pane (one call): the session's for the clear, the whole server's
	// for the watchers to nudge.
	out, _, err := tc.Run(ctx, "", "list-panes", "-a", "-F",
		"#{pane_id}"+sep+"#{window_id}"+sep+"#{pane_active}"+sep+"#{pane_last}"+sep+"#{window_active}"+sep+"#{window_last_flag}"+sep+"#{@agent_attention}"+sep+"#{session_id}"+sep+"#{@tma_watch_pid}")
	if err != nil {
		return err
	}
	out = strings.ReplaceAll(out, `\037`, sep)
	type row struct{ id, win, active, last, winActive, winLast, attn, sess, watch string }
	var all []row
	win, sess := "", ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if len(f) != 9 {
			continue
		}
		r := row{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]}
		all = append(all, r)
		if r.id == pane {
			win, sess = r.win, r.sess
		}
	}
	var rows []row
	for _, r := range all {
		if r.sess == sess {
			rows = append(rows, r)
		}
	}
	targets := map[string]bool{pane: true}
	for _, r := range rows {
		// A select-pane in a window nobody is looking at (not its session's
		// current window) arrives nowhere: only the pane it left clears.
		if kind == "after-select-pane" && r.id == pane && r.winActive != "1" {
			targets[pane] = false
		}
	}
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
	if len(lines) > 0 {
		_, err = tc.Exec(ctx, lines)
	}
	// Nudge every watcher on any focus change, cleared mark or not, so its
	// dashboard follows the move now rather than at its next tick. SIGUSR1
	// kills a process that does not expect it, so a pid is signalled only
	// while it is still a tma-pick (a watcher that died may have left its pid
	// to something else).
	for _, r := range all {
		if pid, perr := strconv.Atoi(r.watch); perr == nil && pid > 1 && isWatcher(pid) {
			_ = syscall.Kill(pid, syscall.SIGUSR1)
		}
	}
	return err
}

func isWatcher(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return err == nil && strings.TrimSpace(string(b)) == "tma-pick"
}
