package hook

import (
	"context"
	"os"

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
	out := lines[:len(lines):len(lines)]
	for _, t := range []string{notify.Blocked, notify.Done} {
		if !n.cfg.NotifyFires(t) {
			continue
		}
		if l, err := (notify.Arm{Trigger: t, Pane: pane, NowMS: nowMS}).Line(n.nonce); err == nil {
			out = append(out, l)
		}
	}
	return out
}

// fire delivers what the batch won; errors only reach the debug log.
func (n *eventNotify) fire(tc *tmux.Client, out string, nowMS int64, say func(string, ...any)) {
	if n == nil {
		return
	}
	home, _ := os.UserHomeDir()
	s := notify.Settings{Config: n.cfg, Env: config.Env(n.e.Lookup), Getenv: n.e.Getenv, Home: home}
	labels := func(dir string) (string, string) {
		if l := gitinfo.New().Resolve(dir); l != nil {
			return l.Repo, l.Branch
		}
		return "", ""
	}
	for _, f := range notify.Won(out, n.nonce) {
		o := notify.Fire(context.Background(), s, tc, labels, f, nowMS)
		say("notify %s %s: muted=%v shown=%d tty=%v command=%q", f.Pane, f.Trigger, o.Muted, o.Shown, o.TTY, o.Command)
		for _, err := range o.Errors {
			say("notify %s: %v", f.Pane, err)
		}
	}
}
