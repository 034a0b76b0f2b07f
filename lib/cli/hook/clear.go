package hookcmd

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/arrival"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/tmux"
)

// clearAttention retires the attention mark of the pane arrived at and, by
// hook kind, of the pane just left: after-select-pane leaves a pane of the
// same window (its last pane); session-window-changed leaves the active pane
// of the session's previous window. A session switch fires neither, so it
// clears nothing behind it. A move made by `tma jump --next` clears nothing
// at all (lib/arrival).
func clearAttention(ctx context.Context, e *common.Env, g *common.Globals, pane, kind string) error {
	if !tmux.ValidPaneID(pane) {
		return nil // an unexpanded #{pane_id}, or garbage: nothing to do
	}
	tc := g.Tmux(e, nil)
	tc.Timeout = HookTimeout
	// Every pane (one call): the session's for the clear, the whole server's
	// for the watchers to nudge.
	out, _, err := tc.Run(ctx, "", "list-panes", "-a", "-F",
		"#{pane_id}"+sep+"#{window_id}"+sep+"#{pane_active}"+sep+"#{pane_last}"+sep+"#{window_active}"+sep+"#{window_last_flag}"+sep+"#{@agent_attention}"+sep+"#{session_id}"+sep+"#{@tma_watch_pid}"+sep+"#{"+arrival.NextMark+"}")
	if err != nil {
		return err
	}
	out = strings.ReplaceAll(out, `\037`, sep)
	type row struct {
		arrival.Pane
		sess, watch string
	}
	var all []row
	sess := ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if len(f) != 10 {
			continue
		}
		r := row{arrival.Pane{ID: f[0], Window: f[1], Active: f[2] == "1", Last: f[3] == "1", WindowActive: f[4] == "1",
			WindowLast: f[5] == "1", Attention: f[6] != "", Next: f[9]}, f[7], f[8]}
		all = append(all, r)
		if r.ID == pane {
			sess = r.sess
		}
	}
	var panes []arrival.Pane
	for _, r := range all {
		if r.sess == sess {
			panes = append(panes, r.Pane)
		}
	}
	plan := arrival.Decide(panes, pane, kind, time.Now().UnixMilli())
	var lines []string
	for _, id := range plan.Clear {
		l, err := tmux.Write{Pane: id, Sets: []tmux.Set{{Name: "@agent_attention", Unset: true}}}.Line()
		if err != nil {
			return err
		}
		lines = append(lines, l)
	}
	for _, r := range plan.Unmark {
		unset := "set -pu -t " + r.ID + " " + arrival.NextMark
		if _, err := strconv.ParseInt(r.Next, 10, 64); err != nil {
			lines = append(lines, unset) // not a mark tma wrote
			continue
		}
		// Only the mark read: a --next landing there since keeps its own.
		lines = append(lines, "if-shell -F -t "+r.ID+" "+tmux.Quote("#{==:#{"+arrival.NextMark+"},"+r.Next+"}")+" "+tmux.Quote(unset))
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
