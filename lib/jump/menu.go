package jump

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// MenuMax bounds the agent menu's length.
const MenuMax = 30

// ShQuote single-quotes s for sh.
func ShQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// MenuLine plans `tma jump --menu`: a display-menu on the client, one entry
// per row (in pick order; the first nine with quick-select digits), each
// running `<tma> <server flags> --client <client> jump --pane <id>`. tma is
// the argv prefix naming the dispatcher and the server (already resolved,
// so the entry lands on this server whatever the menu's environment).
//
// The menu goes through `run-shell -b -d <delay> -C`: a display-menu blocks
// its command client until it closes, and tmux shows no menu over an open
// popup, so it is deferred until this process (and any popup it runs in)
// has gone. glyph renders a row's class.
func MenuLine(client, title string, rows []*record.Row, tma []string, glyph func(class string) string, now int64, delay string) (string, error) {
	if err := tmux.CheckValue(client); err != nil {
		return "", err
	}
	parts := []string{"display-menu", "-c", tmux.Quote(client), "-T", tmux.Quote(tmux.Literal(title))}
	for i, r := range rows {
		if i == MenuMax {
			break
		}
		a := &r.Row
		label := fmt.Sprintf("%s %s  %s  %s", glyph(a.Class()), a.Agent, a.Locator, RowAge(r, now))
		if t := record.OneLine(a.Title); t != "" {
			label += "  " + truncate(t, 40)
		}
		key := ""
		if i < 9 {
			key = fmt.Sprint(i + 1)
		}
		var sh []string
		for _, w := range tma {
			sh = append(sh, ShQuote(w))
		}
		sh = append(sh, "--client", ShQuote(client), "jump", "--pane", a.Pane)
		// run-shell expands formats in its command: keep every # literal.
		cmd := "run-shell " + tmux.Quote(tmux.Literal(strings.Join(sh, " ")))
		// display-menu expands an item's name and command when it adds it.
		parts = append(parts, tmux.Quote(tmux.Literal(label)), tmux.Quote(key), tmux.Quote(tmux.Literal(cmd)))
	}
	menu := strings.Join(parts, " ")
	if err := tmux.CheckValue(menu); err != nil {
		return "", err
	}
	// run-shell -C expands formats once more before parsing the command.
	return "run-shell -b -d " + delay + " -C " + tmux.Quote(tmux.Literal(menu)), nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
