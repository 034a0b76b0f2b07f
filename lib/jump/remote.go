package jump

import (
	"fmt"
	"strings"

	"github.com/tmaproject/tma/lib/tmux"
)

// RemoteWindowFormat is what RemoteWindowPane reads: every pane of the
// server with its window's name (list-panes -a -F).
const RemoteWindowFormat = "#{pane_id}\t#{window_name}"

// RemoteWindowPane is the first pane of the window called name in a
// RemoteWindowFormat listing, "" when there is none: Enter on a remote row
// reuses the window an earlier Enter opened for it.
func RemoteWindowPane(listing, name string) string {
	for _, l := range strings.Split(listing, "\n") {
		if id, n, ok := strings.Cut(l, "\t"); ok && n == name && tmux.ValidPaneID(id) {
			return id
		}
	}
	return ""
}

// RemoteWindow plans the window that attaches to a remote pane: a new
// window after the window after (an @id: new-window takes no pane), called name (-n also turns
// automatic-rename off, so the name stays for the next lookup), running
// argv, printing its pane id. When argv fails (ssh refused, the host gone)
// the window says so and waits for Enter instead of vanishing unread.
func RemoteWindow(after, name string, argv []string) (string, error) {
	if len(after) < 2 || after[0] != '@' || strings.Trim(after[1:], "0123456789") != "" {
		return "", fmt.Errorf("invalid window id %q", after)
	}
	if err := tmux.CheckValue(name); err != nil {
		return "", err
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = ShQuote(a)
	}
	cmd := strings.Join(words, " ") + " || { printf '%s\\n' " + ShQuote("tma: the attach to "+name+" exited") + "\" $?; press Enter to close\"; read -r _; }"
	return "new-window -a -t " + after + " -n " + tmux.Quote(name) + " -P -F '#{pane_id}' " + tmux.Quote(tmux.Literal(cmd)), nil
}
