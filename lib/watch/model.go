package watch

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/tui"
)

// Action is what an event asks of the caller; the model has already
// applied everything else (selection, toggles, hover).
type Action int

const (
	None Action = iota
	Quit        // q, Esc, ctrl-c
	Jump        // Enter, or a click on the selected row
	Menu        // a: the highlighted agent's action menu
)

// Model is one dashboard's state between frames: the latest rows, the
// body built from them, the selection (kept on its agent across
// refreshes), the session-local toggles and the preview it was last
// given.
type Model struct {
	cols, rows int
	// Table (p): the table instead of the preview; Flat (g): no groups;
	// Transcript (t): the preview shows the selected agent's transcript
	// instead of its screen. All three take effect only when wide and are
	// never saved.
	Table, Flat, Transcript bool
	// Scoped: a selector narrowed the rows (the empty body says so).
	Scoped bool

	its     []Item
	loaded  bool // a cycle's rows arrived (the table header needs them)
	lines   []wline
	list    *tui.List
	sel     string // the agent the cursor is on
	preview []string
	prevFor string   // the pane the preview was captured for
	shown   []string // the rows on the terminal, for Paint's diff
	// problems and home (SetProblems) make notices, the lines above the
	// key hint, at the current width.
	problems []string
	home     string
	notices  []string
}

// NewModel is a dashboard of cols × rows with no rows yet.
func NewModel(cols, rows int) *Model {
	m := &Model{cols: cols, rows: rows}
	m.list = tui.NewList(m.Geometry().height)
	return m
}

func (m *Model) wide() bool { return m.cols >= Wide }

func (m *Model) table() bool { return m.Table && m.wide() }

// Geometry is where the frame puts things at the current size and toggles.
func (m *Model) Geometry() geometry {
	return watchGeometry(m.cols, m.rows, m.table(), len(m.notices))
}

// SetProblems takes the files the session's load leaves out (one sentence
// each, Reloader.Problems; nil for none): they are shown as Notices above
// the key hint, wrapped at the width, and the body gives up their rows.
// home is shown as ~.
func (m *Model) SetProblems(problems []string, home string) {
	if slices.Equal(problems, m.problems) && home == m.home {
		return
	}
	m.problems, m.home = slices.Clone(problems), home
	m.rebuild()
}

// Selected is the agent under the cursor, "" when none.
func (m *Model) Selected() string { return m.sel }

// Lines are the body's texts (the first frame `watch --print` prints).
func (m *Model) Lines() []string {
	out := make([]string, len(m.lines))
	for i, l := range m.lines {
		out[i] = l.text
	}
	return out
}

// SetRows takes a cycle's rows: the body is rebuilt and the preview is
// captured again (it is live).
func (m *Model) SetRows(its []Item) {
	m.its, m.loaded = its, true
	m.rebuild()
	m.prevFor = ""
}

// Resize takes the terminal's new size.
func (m *Model) Resize(cols, rows int) {
	m.cols, m.rows = cols, rows
	m.rebuild()
}

// rebuild makes the body lines from the latest rows and puts the cursor
// back on the agent it was on (or where it was, when that agent left).
func (m *Model) rebuild() {
	m.notices = Notices(m.problems, m.home, m.cols)
	g := m.Geometry()
	m.list.SetHeight(g.height)
	m.lines = watchLines(m.its, m.cols, m.table(), m.wide() && !m.Flat)
	want := m.list.Cursor
	for i, l := range m.lines {
		if l.pane != "" && l.pane == m.sel {
			want = i
		}
	}
	sel := make([]bool, len(m.lines))
	for i, l := range m.lines {
		sel[i] = l.pane != ""
	}
	m.list.SetLines(sel, want)
	m.follow()
}

// follow records the agent under the cursor after it moved.
func (m *Model) follow() {
	m.sel = ""
	if c := m.list.Cursor; c >= 0 && c < len(m.lines) {
		m.sel = m.lines[c].pane
	}
}

// Key answers one key by its name (tui.Event.Name). Any key drops the
// hover; p, g and t toggle only when wide; ctrl-l redraws everything on
// the next Paint.
func (m *Model) Key(name string) Action {
	m.list.Key()
	act := None
	switch name {
	case "q", "esc", "ctrl-c":
		return Quit
	case "enter":
		act = Jump
	case "a":
		act = Menu
	case "up", "k", "ctrl-p":
		m.list.Move(-1)
	case "down", "j", "ctrl-n":
		m.list.Move(1)
	case "pgup":
		m.list.Page(-1)
	case "pgdn":
		m.list.Page(1)
	case "home":
		m.list.First()
	case "end":
		m.list.Last()
	case "p":
		if m.wide() {
			m.Table = !m.Table
			m.rebuild()
		}
	case "g":
		if m.wide() {
			m.Flat = !m.Flat
			m.rebuild()
		}
	case "t":
		if m.wide() {
			m.Transcript = !m.Transcript
			m.prevFor = "" // show the other one now
		}
	case "ctrl-l":
		m.shown = nil
	}
	m.follow()
	return act
}

// Mouse answers one mouse report: the pointer underlines the agent under
// it, a left press selects (and on the selected agent jumps), the wheel
// moves three rows. Presses outside the list (the column header, the
// preview, the hint line) and on group headers do nothing.
func (m *Model) Mouse(ev tui.Event) Action {
	g := m.Geometry()
	row := ev.Y - g.top
	inList := ev.X >= 0 && ev.X < g.listW && row >= 0 && row < g.height
	if !inList {
		row = -1
	}
	switch ev.Mouse {
	case tui.MouseMotion:
		m.list.Pointer(row)
	case tui.MousePress:
		if ev.Button != tui.ButtonLeft || !inList {
			m.list.Pointer(row)
			return None
		}
		jump := m.list.Click(row)
		m.follow()
		if jump {
			return Jump
		}
	case tui.WheelUp, tui.WheelDown:
		if inList {
			m.list.Pointer(row)
			if ev.Mouse == tui.WheelUp {
				m.list.Wheel(-1)
			} else {
				m.list.Wheel(1)
			}
			m.follow()
		}
	}
	return None
}

// WantPreview names the pane whose screen (or transcript, when
// Transcript) the next frame needs, and how many rows it shows; ok is
// false when the preview it has is current or none is shown.
func (m *Model) WantPreview() (pane string, rows int, ok bool) {
	g := m.Geometry()
	if !g.preview {
		return "", 0, false
	}
	if m.sel == "" {
		m.preview, m.prevFor = nil, ""
		return "", 0, false
	}
	if m.sel == m.prevFor {
		return "", 0, false
	}
	return m.sel, g.height, true
}

// SetPreview is pane's captured screen or transcript text.
func (m *Model) SetPreview(pane, text string) {
	m.preview, m.prevFor = previewLines(text), pane
}

// Frame is the screen as it is now: exactly rows lines of cols cells.
func (m *Model) Frame() []string {
	v := &watchView{cols: m.cols, rows: m.rows, table: m.table(), grouped: m.wide() && !m.Flat, transcript: m.Transcript,
		lines: m.lines, list: m.list, preview: m.preview, empty: "no agents", notices: m.notices}
	if m.Scoped {
		v.empty = "no agents in scope"
	}
	if v.table && m.loaded {
		v.header = tableHeader(measure(m.its), m.cols)
	}
	return v.frame()
}

// Paint is what to write to bring the terminal from the last painted
// frame to this one: the rows that changed, or a clear and every row when
// full (or when the frame's height changed).
func (m *Model) Paint(full bool) string {
	rows := m.Frame()
	var b strings.Builder
	if full || len(m.shown) != len(rows) {
		b.WriteString("\x1b[H\x1b[2J")
		m.shown = nil
	}
	for i, r := range rows {
		if i < len(m.shown) && m.shown[i] == r {
			continue
		}
		b.WriteString("\x1b[" + strconv.Itoa(i+1) + ";1H" + r)
	}
	m.shown = rows
	return b.String()
}
