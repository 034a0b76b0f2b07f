package pickcmd

import (
	"io"

	"github.com/tmaproject/tma/lib/pick"
)

// actMenu starts `tma act --menu --pane <pane>` for a surface: the picker's
// Tab and watch's `a`. act hands the menu to tmux (deferred, so it opens
// once a popup hosting the surface has gone) and exits; source names the
// surface in the act audit log. The server, client, config and manifest
// dir this surface uses are written in, so the menu's entries reach the
// same server and the same actions.
func (s *sess) actMenu(server, client, pane, source string, stderr io.Writer) (<-chan error, error) {
	argv := tmaArgv(server)
	if client != "" {
		argv = append(argv, "--client", client)
	}
	if s.g.Config != "" {
		argv = append(argv, "--config", s.g.Config)
	}
	if s.g.ManifestDir != "" {
		argv = append(argv, "--manifest-dir", s.g.ManifestDir)
	}
	argv = append(argv, "act", "--menu", "--source", source, "--pane", pane)
	return pick.Start(argv, s.childEnv(), stderr)
}
