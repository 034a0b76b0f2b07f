package doctor

import (
	"context"
	"strings"

	"github.com/tmaproject/tma/lib/tmux"
)

// ReadOptions reads what doctor needs of the server's global options and
// root key table: two tmux calls, each allowed to fail on its own.
func ReadOptions(ctx context.Context, c *tmux.Client) Options {
	var o Options
	if out, _, err := c.Run(ctx, "", "show-options", "-gqv", "status"); err == nil {
		o.StatusRead, o.StatusOff = true, strings.TrimSpace(out) == "off"
	}
	if out, _, err := c.Run(ctx, "", "list-keys", "-T", "root", ";", "show-options", "-gqv", "mouse"); err == nil {
		o.MouseRead = true
		o.BindingsInstalled = mouseBindings(out)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		o.MouseOn = len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "on"
	}
	return o
}

// mouseBindings reports whether list-keys' root table carries tma's
// status-line click binding (install-keys --mouse).
func mouseBindings(listKeys string) bool {
	return strings.Contains(listKeys, "MouseDown1Status") && strings.Contains(listKeys, "tma jump --blocked")
}
