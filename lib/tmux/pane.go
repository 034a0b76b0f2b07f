package tmux

import (
	"context"
	"fmt"
	"strings"
)

// PaneOptions reads one pane's fields and options in one display-message:
// what a command about a single pane (tma transcript) needs, without the
// whole cycle's list. A pane that does not exist is ErrPaneGone.
func (c *Client) PaneOptions(ctx context.Context, pane string, names []string) (map[string]string, error) {
	if !ValidPaneID(pane) {
		return nil, fmt.Errorf("%q is not a pane id (%%N)", pane)
	}
	var f strings.Builder
	// The pane's own id leads, so an answer about another pane (a
	// target tmux resolved elsewhere) is taken for the vanished pane.
	f.WriteString("TMAO" + sep + "#{pane_id}")
	for _, n := range names {
		f.WriteString(sep + "#{" + n + "}")
	}
	out, _, err := c.Run(ctx, "", "display-message", "-p", "-t", pane, f.String())
	if err != nil {
		return nil, err
	}
	line := strings.TrimRight(out, "\n")
	line = strings.ReplaceAll(line, `\037`, sep)
	fields := strings.Split(line, sep)
	if len(fields) < len(names)+2 || fields[0] != "TMAO" {
		return nil, fmt.Errorf("tmux answered %q for pane %s's options", out, pane)
	}
	if fields[1] != pane {
		return nil, &Error{Kind: ErrPaneGone, Target: c.Target, Bin: c.Bin, Stderr: "can't find pane: " + pane}
	}
	m := make(map[string]string, len(names))
	for i, n := range names {
		v := fields[i+2]
		if i == len(names)-1 {
			v = strings.Join(fields[i+2:], sep) // the last may carry the separator
		}
		m[n] = v
	}
	return m, nil
}
