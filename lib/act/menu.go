package act

import (
	"strings"

	"github.com/tmaproject/tma/lib/tmux"
)

// MenuItem is one fireable action offered in the menu.
type MenuItem struct {
	Name  string
	Label string
	Key   string // quick-select key, "" for none
	Yes   bool   // the entry confirms (the menu keystroke is the confirmation)
}

// MenuKeys gives each item a quick-select key: the first letter of its name
// not taken by an earlier item, else none.
func MenuKeys(items []MenuItem) {
	used := map[byte]bool{}
	for i := range items {
		items[i].Key = ""
		for j := 0; j < len(items[i].Name); j++ {
			c := items[i].Name[j]
			if c >= 'a' && c <= 'z' && !used[c] {
				used[c] = true
				items[i].Key = string(c)
				break
			}
		}
	}
}

// ShQuote single-quotes s for sh.
func ShQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// MenuLine plans `tma act --menu`: a display-menu on client titled title,
// one entry per item, each running
//
//	<tma argv> --client <client> act <name> --pane <pane> --source <source> [--yes] <extra>
//
// through run-shell -b (an exec action may take long: the client must not
// wait on it). tma is the argv prefix naming the dispatcher, the server and
// the config the menu was computed with, so an entry lands where the menu
// was computed whatever the menu's environment.
//
// The menu itself goes through `run-shell -b -d <delay> -C`, as tma jump
// --menu's does: a display-menu blocks its command client until it closes,
// and tmux shows no menu over an open popup, so it is deferred until this
// process (and any popup it runs in) has gone.
func MenuLine(client, title, pane, source string, items []MenuItem, tma, extra []string, delay string) (string, error) {
	if err := tmux.CheckValue(client); err != nil {
		return "", err
	}
	if !tmux.ValidPaneID(pane) {
		return "", errInvalidPane(pane)
	}
	parts := []string{"display-menu", "-c", tmux.Quote(client), "-T", tmux.Quote(tmux.Literal(title))}
	for _, it := range items {
		var sh []string
		for _, w := range tma {
			sh = append(sh, ShQuote(w))
		}
		sh = append(sh, "--client", ShQuote(client), "act", ShQuote(it.Name), "--pane", pane, "--source", ShQuote(source))
		if it.Yes {
			sh = append(sh, "--yes")
		}
		for _, w := range extra {
			sh = append(sh, ShQuote(w))
		}
		// run-shell expands formats in its command: keep every # literal.
		cmd := "run-shell -b " + tmux.Quote(tmux.Literal(strings.Join(sh, " ")))
		// display-menu expands an item's name and command when it adds it.
		parts = append(parts, tmux.Quote(tmux.Literal(it.Label)), tmux.Quote(it.Key), tmux.Quote(tmux.Literal(cmd)))
	}
	menu := strings.Join(parts, " ")
	if err := tmux.CheckValue(menu); err != nil {
		return "", err
	}
	// run-shell -C expands formats once more before parsing the command.
	return "run-shell -b -d " + delay + " -C " + tmux.Quote(tmux.Literal(menu)), nil
}

type errInvalidPane string

func (e errInvalidPane) Error() string { return "invalid pane id " + ShQuote(string(e)) }
