package watch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tui"
)

// Wide is the width at which the picker and watch show a preview (and
// watch its table and groups): the manual's 76 columns.
const Wide = 76

// ansi maps a config colour name to an SGR foreground.
func ansi(color string) string {
	c := strings.ToLower(strings.TrimSpace(color))
	names := map[string]string{"black": "30", "red": "31", "green": "32", "yellow": "33", "blue": "34",
		"magenta": "35", "cyan": "36", "white": "37", "gray": "90", "grey": "90", "darkgray": "90",
		"darkgrey": "90", "brightblack": "90", "brightred": "91", "brightgreen": "92", "brightyellow": "93",
		"brightblue": "94", "brightmagenta": "95", "brightcyan": "96", "brightwhite": "97"}
	if n, ok := names[c]; ok {
		return n
	}
	for _, p := range []string{"colour", "color"} {
		if n, ok := strings.CutPrefix(c, p); ok {
			if _, err := strconv.Atoi(n); err == nil {
				return "38;5;" + n
			}
		}
	}
	if len(c) == 7 && c[0] == '#' {
		if v, err := strconv.ParseUint(c[1:], 16, 32); err == nil {
			return fmt.Sprintf("38;2;%d;%d;%d", v>>16, v>>8&0xff, v&0xff)
		}
	}
	return ""
}

func paint(sgr, s string) string {
	if sgr == "" || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

const dim = "2"

// width is the cells s takes (wide characters count two).
func width(s string) int { return tui.Width(s) }

func pad(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if width(s) <= n {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := tui.RuneWidth(r)
		if used+rw > n-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + "…"
}

// Item is one agent row ready to draw. Pane is its key: the pane id for a
// local row, Key(host, pane) for a remote one; Gone marks a pane the picker
// keeps as a dimmed row after its agent left. An item with a header is
// not a row: a remote's dimmed line that says why it has none.
type Item struct {
	Pane                                                                      string
	Gone                                                                      bool
	glyph, color, agent, state, locator, age, branch, repo, title, model, ctx string
	ctxStale                                                                  bool
	class                                                                     string
	host, header                                                              string
}

// Items are the rows as both surfaces draw them, in the order given: the
// class's glyph and colour from cfg, one-line labels, the time in state
// at the cycle's clock and the context gauge.
func Items(f *fleet.Fleet, rows []*record.Row, cfg *config.Config) []Item {
	var out []Item
	for _, r := range rows {
		model := ""
		if p := f.Pane(r.Row.Pane); p != nil {
			model = p.Opts["@agent_model"]
		}
		out = append(out, item(r, r.Row.Pane, f.Cycle.NowMS, model, cfg))
	}
	return out
}

// RemoteItems are a remote's rows (host is its [[remote]] name), keyed
// Key(host, pane) and labelled with the host; their time in state is read
// at nowMS, the local cycle's clock.
func RemoteItems(host string, rows []*record.Row, nowMS int64, cfg *config.Config) []Item {
	var out []Item
	for _, r := range rows {
		it := item(r, Key(host, r.Row.Pane), nowMS, "", cfg)
		it.host = record.OneLine(host)
		out = append(out, it)
	}
	return out
}

// Header is a remote's line in place of its rows: "build: unreachable
// (timeout 2s)". It is drawn dimmed and is never selected.
func Header(text string) Item { return Item{header: record.OneLine(text)} }

// Label gives every item with no host this one: with remotes in view the
// local rows say which host they are on too.
func Label(its []Item, host string) {
	for i := range its {
		if its[i].host == "" && its[i].header == "" {
			its[i].host = record.OneLine(host)
		}
	}
}

// Key is a remote row's key: (host, pane), the remote's one server being
// implied by its host. A local row's key is its pane id.
func Key(host, pane string) string { return host + ":" + pane }

// SplitKey reads a key back: host is "" for a local row.
func SplitKey(key string) (host, pane string) {
	if i := strings.LastIndexByte(key, ':'); i > 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

func item(r *record.Row, key string, nowMS int64, model string, cfg *config.Config) Item {
	a := &r.Row
	st := cfg.PickerStyle(a.Class())
	it := Item{Pane: key, glyph: st.Glyph, color: ansi(st.Color), agent: record.OneLine(a.Agent), state: a.State,
		locator: record.OneLine(a.Locator), age: jump.RowAge(r, nowMS), title: record.OneLine(a.Title), class: a.Class(),
		model: record.OneLine(model)}
	if a.Detail != nil && *a.Detail != "" {
		it.state += "/" + record.OneLine(*a.Detail)
	}
	if a.Branch != nil {
		it.branch = record.OneLine(*a.Branch)
	}
	if a.Repo != nil {
		it.repo = record.OneLine(*a.Repo)
	}
	if a.Context != nil {
		it.ctx = gauge(*a.Context)
		// A gauge older than five minutes is greyed: nothing refreshed it.
		it.ctxStale = a.ContextAtMS == nil || nowMS-*a.ContextAtMS > 5*60_000
	}
	return it
}

func gauge(pct int64) string {
	pct = max(0, min(pct, 100))
	full := int((pct + 10) / 20)
	return strings.Repeat("▰", full) + strings.Repeat("▱", 5-full) + fmt.Sprintf(" %3d%%", pct)
}

// ListLines are the picker's rows: one list line per item, measured
// together, in the list's share of a wide terminal.
func ListLines(its []Item, cols int) []string {
	w := measure(its)
	if cols >= Wide {
		cols = listWidth(cols)
	}
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = listLine(it, w, cols)
	}
	return out
}

// widths are the column widths of one frame.
type widths struct{ host, agent, locator, age, branch, state, model int }

func measure(its []Item) widths {
	var w widths
	for _, it := range its {
		if it.header != "" {
			continue
		}
		w.host = max(w.host, min(width(it.host), 16))
		w.agent = max(w.agent, min(width(it.agent), 12))
		w.locator = max(w.locator, min(width(it.locator), 24))
		w.age = max(w.age, width(it.age))
		w.branch = max(w.branch, min(width(it.branch), 24))
		w.state = max(w.state, min(width(it.state), 20))
		w.model = max(w.model, min(width(it.model), 20))
	}
	return w
}

// listLine is one row of the picker and of watch's list body: glyph,
// agent, locator, time in state, a dimmed branch label, title.
func listLine(it Item, w widths, cols int) string {
	if it.header != "" {
		return paint(dim, cut("✗ "+it.header, max(cols, 10)))
	}
	host := ""
	if w.host > 0 {
		host = pad(cut(it.host, w.host), w.host) + "  "
	}
	if it.Gone {
		return paint(dim, "✗ "+host+pad(cut(it.agent, w.agent), w.agent)+"  "+pad(cut(it.locator, w.locator), w.locator)+"  (gone)")
	}
	s := paint(it.color, it.glyph) + " " + host + pad(cut(it.agent, w.agent), w.agent) + "  " +
		pad(cut(it.locator, w.locator), w.locator) + "  " + pad(it.age, w.age)
	used := 2 + width(host) + w.agent + 2 + w.locator + 2 + w.age
	if w.branch > 0 {
		s += "  " + paint(dim, pad(cut(it.branch, w.branch), w.branch))
		used += 2 + w.branch
	}
	if t := cut(it.title, max(cols-used-4, 10)); t != "" {
		s += "  " + t
	}
	return s
}

// tableLine is one row of watch's full-width table: glyph, agent, state
// with detail, context gauge, time in state, locator, title, model (when
// any row has one), branch.
func tableLine(it Item, w widths, cols int) string {
	if it.Gone || it.header != "" {
		return listLine(it, w, cols)
	}
	ctx := pad(it.ctx, 10)
	if it.ctxStale {
		ctx = paint(dim, ctx)
	}
	host := ""
	if w.host > 0 {
		host = pad(cut(it.host, w.host), w.host) + "  "
	}
	s := paint(it.color, it.glyph) + " " + host + pad(cut(it.agent, w.agent), w.agent) + "  " +
		pad(cut(it.state, w.state), w.state) + "  " + ctx + "  " + pad(it.age, w.age) + "  " +
		pad(cut(it.locator, w.locator), w.locator)
	used := 2 + width(host) + w.agent + 2 + w.state + 2 + 10 + 2 + w.age + 2 + w.locator
	tail := 0
	if w.model > 0 {
		tail += 2 + w.model
	}
	if w.branch > 0 {
		tail += 2 + w.branch
	}
	tw := max(cols-used-tail-6, 10)
	s += "  " + pad(cut(it.title, tw), tw)
	if w.model > 0 {
		s += "  " + pad(cut(it.model, w.model), w.model)
	}
	if w.branch > 0 {
		s += "  " + paint(dim, pad(cut(it.branch, w.branch), w.branch))
	}
	return s
}

// tableWidths widens the measured columns to fit the column header's
// names; the rows and the header are drawn with the same widths.
func tableWidths(w widths) widths {
	t := widths{agent: max(w.agent, 5), state: max(w.state, 5), age: max(w.age, 3), locator: max(w.locator, 5)}
	if w.host > 0 {
		t.host = max(w.host, 4)
	}
	if w.model > 0 {
		t.model = max(w.model, 5)
	}
	if w.branch > 0 {
		t.branch = max(w.branch, 6)
	}
	return t
}

// tableHeader is the table's column header (bold) for rows drawn with
// tableWidths(w).
func tableHeader(w widths, cols int) string {
	it := Item{glyph: " ", host: "HOST", agent: "AGENT", state: "STATE", ctx: "CONTEXT", age: "AGE", locator: "WHERE", title: "TITLE", model: "MODEL", branch: "BRANCH"}
	s := tableLine(it, tableWidths(w), cols)
	return strings.ReplaceAll(s, "\x1b[2m", "\x1b[1m")
}

// groups gathers items by repo. Items arrive in pick order, so groups in
// order of first appearance are ordered by their most urgent member; panes
// with no repo fold into one "(no repo)" group.
func groups(its []Item) [][]Item {
	idx := map[string]int{}
	var out [][]Item
	for _, it := range its {
		k := it.repo
		if k == "" {
			k = "(no repo)"
		}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], it)
	}
	return out
}

func groupName(it Item) string {
	if it.repo == "" {
		return "(no repo)"
	}
	return it.repo
}
