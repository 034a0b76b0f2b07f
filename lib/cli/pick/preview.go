package pickcmd

import (
	"io"
	"strconv"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/screen"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/watch"
)

// preview prints a pane's screen with its colours (capture-pane -e): the
// picker's preview command. A gone pane prints a note. fzf shows a preview
// from its top, so only the bottom that fits is printed (FZF_PREVIEW_LINES,
// which fzf sets): the prompt an agent waits at is the part you opened the
// picker for.
func (s *sess) preview(pane string) int {
	if note, ok := remotePreview(pane); ok {
		_, _ = io.WriteString(s.e.Stdout, note)
		return common.ExitOK
	}
	if !tmux.ValidPaneID(pane) {
		return common.ExitOK // a header row, or nothing highlighted
	}
	if s.e.Getenv("TMA_TMUX_BIN") != "" {
		// The picker hands fzf's commands the tmux it runs (childEnv) and
		// its server (-S): the preview needs nothing from the config, so
		// a config left broken mid-edit does not blank it.
		s.tc = s.g.Tmux(s.e, nil)
	} else if err := s.load(); err != nil {
		return s.fail(err)
	}
	rows, _ := strconv.Atoi(s.e.Getenv("FZF_PREVIEW_LINES"))
	_, _ = io.WriteString(s.e.Stdout, screen.Tail(s.capture(pane), rows))
	return common.ExitOK
}

// capture is a pane's screen with its colours, or a note when the pane is
// gone: the picker's preview (through `tma-pick preview`) and watch's (in
// process). The caller has loaded the config.
func (s *sess) capture(pane string) string {
	out, _, err := s.tc.Run(common.Background(), "", "capture-pane", "-p", "-e", "-t", pane)
	if err != nil {
		return "(pane " + pane + " is gone)\n"
	}
	return out
}

// remotePreview is the preview of a remote row's key: its screen stays on
// its host (serve has no capture frame), so the preview says how to see it.
func remotePreview(key string) (string, bool) {
	host, pane := watch.SplitKey(key)
	if host == "" || !tmux.ValidPaneID(pane) {
		return "", false
	}
	return "(" + key + " is on " + host + ": its screen is not sent over serve; Enter opens a window attached to it)\n", true
}
