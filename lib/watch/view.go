package watch

import (
	"strings"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tui"
)

// wline is one line of watch's body: an agent row (pane set) or a group
// header (pane empty, never selectable).
type wline struct {
	pane, text string
}

// watchLines builds the body: the table or the list lines of every Item,
// under dimmed `▸ repo` headers when grouped, and after them the remotes'
// header lines (a remote with no rows says why), never grouped. cols is the terminal width;
// beside a preview the list gets its share of it.
func watchLines(its []Item, cols int, table, grouped bool) []wline {
	w := measure(its)
	tw := tableWidths(w)
	line := func(it Item) string {
		if table {
			return tableLine(it, tw, cols)
		}
		if cols >= Wide {
			return listLine(it, w, listWidth(cols))
		}
		return listLine(it, w, cols)
	}
	var out, heads []wline
	var rows []Item
	for _, it := range its {
		if it.header != "" {
			heads = append(heads, wline{"", line(it)})
		} else {
			rows = append(rows, it)
		}
	}
	if !grouped {
		for _, it := range rows {
			out = append(out, wline{it.Pane, line(it)})
		}
		return append(out, heads...)
	}
	for _, g := range groups(rows) {
		out = append(out, wline{"", paint(dim, "▸ "+groupName(g[0]))})
		for _, it := range g {
			out = append(out, wline{it.Pane, line(it)})
		}
	}
	return append(out, heads...)
}

// listWidth is the list's share of a wide terminal beside the preview (the
// rest, less a one-column border, is the preview's).
func listWidth(cols int) int { return cols * 45 / 100 }

// watchView is everything one frame is drawn from.
type watchView struct {
	cols, rows int
	table      bool // the table body (only when wide)
	grouped    bool
	transcript bool   // the preview shows the transcript (t)
	header     string // the table's column header
	lines      []wline
	list       *tui.List
	preview    []string // the selected pane's screen lines
	empty      string   // shown when there are no rows
	notices    []string // Notices, drawn above the hint
}

// geometry is where things go: the body's first row and height, the
// list's width, and whether a preview sits beside it.
type geometry struct {
	top, height, listW int
	notices            int // the notice lines between the body and the hint
	preview            bool
}

func watchGeometry(cols, rows int, table bool, notices int) geometry {
	g := geometry{listW: cols}
	wide := cols >= Wide
	if wide && table {
		g.top = 1 // the column header
	}
	if wide && !table {
		g.preview = true
		g.listW = listWidth(cols)
	}
	g.height = rows - g.top - 1 // the key-hint line at the bottom
	g.notices = noticeRows(g.height, notices)
	g.height -= g.notices // the notices, above the hint
	if g.height < 1 {
		g.height = 1
	}
	return g
}

// noticeRows is how many notice lines a body of height rows gives up: one
// per notice, at most a third of it, so the agents stay in view.
func noticeRows(height, notices int) int {
	return max(0, min(notices, height/3))
}

// Notices are the lines a surface shows while files it reads are broken
// (lib/cli/common.Reloader.Problems): each problem on one line, "⚠ " and
// its words (home as ~), in yellow, wrapped at width onto at most
// NoticeLines lines (the last cut with …); width 0 does not wrap. The
// picker puts them in fzf's header, watch above its key hint; a surface
// shows them for as long as the files stay broken.
func Notices(problems []string, home string, width int) []string {
	var out []string
	for _, p := range problems {
		if home != "" && home != "/" {
			p = strings.ReplaceAll(p, strings.TrimSuffix(home, "/")+"/", "~/")
		}
		words := strings.Fields(record.OneLine(p))
		if len(words) == 0 {
			continue
		}
		for _, l := range wrap(words, width) {
			out = append(out, paint(warnColor, l))
		}
	}
	return out
}

// NoticeLines bounds the lines one notice takes.
const NoticeLines = 3

// wrap lays words out as "⚠ " lines of at most width cells, continuation
// lines indented two, at most NoticeLines of them; a word wider than a
// line is cut with ….
func wrap(words []string, width int) []string {
	cut := func(l string) string {
		if width > 0 && tui.Width(l) > width {
			return tui.Clip(l, width-1) + "…"
		}
		return l
	}
	var lines []string
	cur, fresh := "⚠", true
	for i, w := range words {
		if width > 0 && !fresh && tui.Width(cur)+1+tui.Width(w) > width {
			if len(lines) == NoticeLines-1 {
				return append(lines, cut(cur+" "+strings.Join(words[i:], " ")))
			}
			lines = append(lines, cut(cur))
			cur = " "
		}
		cur += " " + w
		fresh = false
	}
	return append(lines, cut(cur))
}

// warnColor is the notices' yellow.
const warnColor = "33"

func (v *watchView) hint() string {
	if v.cols < Wide {
		return "enter jump · a actions · q quit"
	}
	p, g, t := "p table", "g flat", " · t transcript"
	if v.table {
		p, t = "p preview", ""
	}
	if !v.grouped {
		g = "g group"
	}
	if v.transcript && t != "" {
		t = " · t screen"
	}
	return "enter jump · a actions · " + p + t + " · " + g + " · q quit"
}

// frame is the screen: exactly rows lines, each exactly cols cells. The
// selection is the reversed block, the hover an underline; a preview
// line is clipped to its rectangle and ends with a reset.
func (v *watchView) frame() []string {
	g := watchGeometry(v.cols, v.rows, v.table, len(v.notices))
	out := make([]string, 0, v.rows)
	if g.top > 0 {
		out = append(out, tui.Fit(v.header, v.cols))
	}
	hover := v.list.Hover()
	pw := v.cols - g.listW - 1
	prev := v.preview
	if len(prev) > g.height {
		if v.transcript {
			prev = prev[:g.height] // newest first: the head is what matters
		} else {
			prev = prev[len(prev)-g.height:]
		}
	}
	for r := 0; r < g.height; r++ {
		i := v.list.Top + r
		text := ""
		if i < len(v.lines) {
			text = v.lines[i].text
		} else if r == 0 && len(v.lines) == 0 {
			text = paint(dim, v.empty)
		}
		cell := tui.Fit(text, g.listW)
		switch {
		case i == v.list.Cursor && i == hover:
			cell = tui.Overlay(cell, "7;4")
		case i == v.list.Cursor:
			cell = tui.Overlay(cell, "7")
		case i == hover:
			cell = tui.Overlay(cell, "4")
		}
		if g.preview {
			p := ""
			if r < len(prev) {
				p = prev[r]
			}
			cell += paint(dim, "│") + tui.Fit(p, pw)
		}
		out = append(out, cell)
	}
	for len(out) < v.rows-1-g.notices {
		out = append(out, tui.Fit("", v.cols))
	}
	for _, n := range v.notices[:g.notices] {
		out = append(out, tui.Fit(n, v.cols))
	}
	if len(out) < v.rows {
		out = append(out, tui.Fit(paint(dim, v.hint()), v.cols))
	}
	return out[:min(len(out), v.rows)]
}

// previewLines is a captured screen as the preview shows it: trailing
// blank lines dropped (the frame keeps the bottom of what is left, where
// an agent's prompt is).
func previewLines(screen string) []string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(tui.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
