package pick

import (
	"io"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/tmux"
)

// preview prints a pane's screen with its colours (capture-pane -e): the
// picker's and watch's preview command. A gone pane prints a note.
func (s *sess) preview(pane string) int {
	if !tmux.ValidPaneID(pane) {
		return common.ExitOK // a header row, or nothing highlighted
	}
	if err := s.load(); err != nil {
		return s.fail(err)
	}
	out, _, err := s.tc.Run(common.Background(), "", "capture-pane", "-p", "-e", "-t", pane)
	if err != nil {
		_, _ = io.WriteString(s.e.Stdout, "(pane "+pane+" is gone)\n")
		return common.ExitOK
	}
	_, _ = io.WriteString(s.e.Stdout, out)
	return common.ExitOK
}
