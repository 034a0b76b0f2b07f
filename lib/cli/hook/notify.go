package hookcmd

import (
	"context"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/notify"
	"github.com/tmaproject/tma/lib/tmux"
)

// eventNotify is [notify] from_event: the hook fires the episode its own
// stamp opens. The arm lines ride the stamp's one tmux call (after the
// stamp lines, so tmux reads the tuple as committed), and only a won
// episode costs more: one call for the clients' message, the supervisor.
type eventNotify struct {
	e     *common.Env
	cfg   *config.Config
	nonce string
}

func newEventNotify(e *common.Env, cfg *config.Config) *eventNotify {
	if !cfg.NotifyFromEvent(config.Env(e.Lookup)) {
		return nil
	}
	if !cfg.NotifyFires(notify.Blocked) && !cfg.NotifyFires(notify.Done) {
		return nil
	}
	return &eventNotify{e: e, cfg: cfg, nonce: notify.Nonce()}
}

// arm appends the pane's arm lines to a stamp batch.
func (n *eventNotify) arm(lines []string, pane string, nowMS int64) []string {
	if n == nil || len(lines) == 0 || !tmux.ValidPaneID(pane) {
		return lines
	}
	var arms []notify.Arm
	for _, t := range []string{notify.Blocked, notify.Done} {
		if n.cfg.NotifyFires(t) {
			arms = append(arms, notify.Arm{Trigger: t, Pane: pane, NowMS: nowMS})
		}
	}
	return append(lines[:len(lines):len(lines)], notify.Lines(arms, n.nonce)...)
}

// fire delivers what the batch won; errors only reach the debug log.
func (n *eventNotify) fire(tc *tmux.Client, out string, nowMS int64, say func(string, ...any)) {
	if n == nil {
		return
	}
	s := notify.NewSettings(n.cfg, n.e.Lookup)
	labels := notify.GitLabels(gitinfo.New())
	won := notify.Won(out, n.nonce)
	for i, o := range notify.FireAll(context.Background(), s, tc, labels, won, nowMS) {
		f := won[i]
		say("notify %s %s: muted=%v shown=%d tty=%v command=%q", f.Pane, f.Trigger, o.Muted, o.Shown, o.TTY, o.Command)
		for _, err := range o.Errors {
			say("notify %s: %v", f.Pane, err)
		}
	}
}
