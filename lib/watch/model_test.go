package watch

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/tui"
)

// model is a dashboard of cols × rows showing testItems (grouped when
// wide: ▸ api, %1, %3, ▸ (no repo), %2; flat: %1, %2, %3).
func model(cols, rows int) *Model {
	m := NewModel(0, 0)
	m.Resize(cols, rows)
	m.SetRows(testItems())
	return m
}

func TestModelKeys(t *testing.T) {
	for _, tc := range []struct {
		cols                    int
		keys                    string // space-separated key names
		act                     Action // of the last key
		sel                     string
		table, flat, transcript bool
	}{
		{cols: 120, keys: "x", act: None, sel: "%1"},
		{cols: 120, keys: "down", sel: "%3"},
		{cols: 120, keys: "j j", sel: "%2"}, // over the (no repo) header
		{cols: 120, keys: "ctrl-n ctrl-n ctrl-n ctrl-n", sel: "%2"},
		{cols: 120, keys: "up", sel: "%1"},
		{cols: 120, keys: "j j k", sel: "%3"},
		{cols: 120, keys: "j ctrl-p", sel: "%1"},
		{cols: 120, keys: "end", sel: "%2"},
		{cols: 120, keys: "end home", sel: "%1"},
		{cols: 120, keys: "pgdn", sel: "%2"},
		{cols: 120, keys: "pgdn pgup", sel: "%1"},
		{cols: 120, keys: "down enter", act: Jump, sel: "%3"},
		{cols: 120, keys: "a", act: Menu, sel: "%1"},
		{cols: 120, keys: "q", act: Quit, sel: "%1"},
		{cols: 120, keys: "esc", act: Quit, sel: "%1"},
		{cols: 120, keys: "ctrl-c", act: Quit, sel: "%1"},
		{cols: 120, keys: "p", sel: "%1", table: true},
		{cols: 120, keys: "p p", sel: "%1"},
		{cols: 120, keys: "g", sel: "%1", flat: true},
		{cols: 120, keys: "g down", sel: "%2", flat: true}, // pick order, no groups
		{cols: 120, keys: "down g", sel: "%3", flat: true}, // the selection stays on its agent
		{cols: 120, keys: "t", sel: "%1", transcript: true},
		{cols: 120, keys: "t t", sel: "%1"},
		// Narrow: one flat list in pick order; p, g and t do nothing.
		{cols: 60, keys: "down", sel: "%2"},
		{cols: 60, keys: "p g t", sel: "%1"},
		{cols: 60, keys: "enter", act: Jump, sel: "%1"},
	} {
		m := model(tc.cols, 10)
		var act Action
		for _, k := range strings.Fields(tc.keys) {
			act = m.Key(k)
		}
		if act != tc.act || m.Selected() != tc.sel || m.Table != tc.table || m.Flat != tc.flat || m.Transcript != tc.transcript {
			t.Errorf("%d cols, %q: action %d on %s table=%v flat=%v transcript=%v; want %d on %s table=%v flat=%v transcript=%v",
				tc.cols, tc.keys, act, m.Selected(), m.Table, m.Flat, m.Transcript, tc.act, tc.sel, tc.table, tc.flat, tc.transcript)
		}
	}
}

// A refresh keeps the cursor on its agent wherever that agent moved, and
// where it was when the agent left.
func TestModelSelectionAcrossRefreshes(t *testing.T) {
	m := model(60, 10) // flat: %1, %2, %3
	m.Key("down")
	its := testItems()
	m.SetRows([]Item{its[1], its[2], its[0]})
	if m.Selected() != "%2" {
		t.Errorf("after a reorder the cursor is on %s, want %%2", m.Selected())
	}
	m.SetRows([]Item{its[1], its[2], its[0]}[1:]) // %2 left; the cursor stays on line 0
	if m.Selected() != "%3" {
		t.Errorf("after its agent left the cursor is on %s, want %%3", m.Selected())
	}
	m.SetRows(nil)
	if m.Selected() != "" || m.Key("enter") != Jump || m.Selected() != "" {
		t.Errorf("no rows: selected %q", m.Selected())
	}
}

// Rows in, frame out: what each body line shows at each size and toggle.
func TestModelFrame(t *testing.T) {
	for _, tc := range []struct {
		cols, rows int
		keys       string
		its        []Item
		scoped     bool
		want       []string // each frame row, ANSI stripped, trailing blanks trimmed: a regexp
	}{
		{cols: 60, rows: 6, its: testItems(), want: []string{
			`^⚑ claude  s:1\.0  5s  fix the 日本 tests$`,
			`^● codex   s:2\.0  1m  no repo$`,
			`^○ claude  s:3\.0  2h  idle$`,
			`^$`, `^$`,
			`^enter jump · a actions · q quit$`}},
		{cols: 120, rows: 7, its: testItems(), want: []string{
			`^▸ api +│$`,
			`^⚑ claude  s:1\.0  5s  fix the 日本 tests +│$`,
			`^○ claude  s:3\.0  2h  idle +│$`,
			`^▸ \(no repo\) +│$`,
			`^● codex   s:2\.0  1m  no repo +│$`,
			`^ +│$`,
			`^enter jump · a actions · p table · t transcript · g flat · q quit$`}},
		{cols: 120, rows: 5, keys: "g t", its: testItems(), want: []string{
			`^⚑ claude  s:1\.0  5s  fix the 日本 tests +│$`,
			`^● codex   s:2\.0  1m  no repo +│$`,
			`^○ claude  s:3\.0  2h  idle +│$`,
			`^ +│$`,
			`^enter jump · a actions · p table · t screen · g group · q quit$`}},
		{cols: 120, rows: 5, keys: "p g", its: testItems(), want: []string{
			`^  AGENT   STATE  CONTEXT     AGE  WHERE  TITLE`,
			`^⚑ claude {20,}5s   s:1\.0  fix the 日本 tests$`, // no state, no gauge: blank columns
			`^● codex {21,}1m   s:2\.0  no repo$`,
			`^○ claude {20,}2h   s:3\.0  idle$`,
			`^enter jump · a actions · p preview · g group · q quit$`}},
		{cols: 60, rows: 3, its: nil, want: []string{`^no agents$`, `^$`, `^enter jump`}},
		{cols: 60, rows: 3, its: nil, scoped: true, want: []string{`^no agents in scope$`, `^$`, `^enter jump`}},
		{cols: 120, rows: 3, keys: "p", its: nil, want: []string{`^  AGENT  STATE  CONTEXT  +AGE  WHERE  TITLE$`, `^no agents$`, `^enter jump`}},
	} {
		m := NewModel(0, 0)
		m.Scoped = tc.scoped
		m.Resize(tc.cols, tc.rows)
		m.SetRows(tc.its)
		for _, k := range strings.Fields(tc.keys) {
			m.Key(k)
		}
		got := m.Frame()
		name := fmt.Sprintf("%dx%d %q", tc.cols, tc.rows, tc.keys)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d rows, want %d", name, len(got), len(tc.want))
			continue
		}
		for i, r := range got {
			if w := tui.Width(r); w != tc.cols {
				t.Errorf("%s: row %d is %d wide", name, i, w)
			}
			s := strings.TrimRight(tui.Strip(r), " ")
			if !regexp.MustCompile(tc.want[i]).MatchString(s) {
				t.Errorf("%s: row %d is %q, want %s", name, i, s, tc.want[i])
			}
		}
	}
}

// The preview is asked for when the selected agent changes, a cycle
// arrives or t is pressed, and only when one is shown.
func TestModelPreview(t *testing.T) {
	m := model(120, 6) // body height 5
	want := func(step, pane string) {
		t.Helper()
		p, rows, ok := m.WantPreview()
		if ok != (pane != "") || p != pane || (ok && rows != 5) {
			t.Errorf("%s: WantPreview %q %d %v, want %q", step, p, rows, ok, pane)
		}
	}
	want("first frame", "%1")
	m.SetPreview("%1", "one\ntwo\n\n")
	want("captured", "")
	m.Key("down")
	want("moved", "%3")
	m.SetPreview("%3", "three")
	m.Key("x")
	want("another key", "")
	m.Key("t")
	want("t", "%3")
	m.SetPreview("%3", "newest\nolder\n")
	m.SetRows(testItems())
	want("a cycle", "%3")
	m.SetPreview("%3", strings.Repeat("line\n", 7)+"prompt\n")
	if r := tui.Strip(m.Frame()[0]); !strings.HasSuffix(strings.TrimRight(r, " "), "│line") {
		t.Errorf("the transcript's head is shown: %q", r)
	}
	m.Key("t")
	m.SetPreview("%3", strings.Repeat("line\n", 7)+"prompt\n")
	if r := tui.Strip(m.Frame()[4]); !strings.HasSuffix(strings.TrimRight(r, " "), "│prompt") {
		t.Errorf("the screen's bottom is shown: %q", r)
	}
	m.Key("p") // the table: no preview
	want("table", "")
	m.Key("p")
	m.Resize(60, 6)
	want("narrow", "")
	m.Resize(120, 6)
	m.SetRows(nil)
	want("no agents", "")
}

var cup = regexp.MustCompile(`\x1b\[(\d+);1H`)

// Paint writes only the rows that changed, everything after ctrl-l or a
// change of height.
func TestModelPaint(t *testing.T) {
	m := model(60, 6)
	first := m.Paint(false)
	if !strings.HasPrefix(first, "\x1b[H\x1b[2J") || len(cup.FindAllString(first, -1)) != 6 {
		t.Errorf("first paint: %q", first)
	}
	if p := m.Paint(false); p != "" {
		t.Errorf("nothing changed, painted %q", p)
	}
	m.Key("down")
	var rows []string
	for _, c := range cup.FindAllStringSubmatch(m.Paint(false), -1) {
		rows = append(rows, c[1])
	}
	if strings.Join(rows, ",") != "1,2" {
		t.Errorf("moving the cursor repainted rows %v, want 1,2", rows)
	}
	m.Key("ctrl-l")
	if p := m.Paint(false); !strings.HasPrefix(p, "\x1b[H\x1b[2J") {
		t.Errorf("ctrl-l: no full repaint: %q", p)
	}
	m.Resize(60, 4)
	if p := m.Paint(false); !strings.HasPrefix(p, "\x1b[H\x1b[2J") || len(cup.FindAllString(p, -1)) != 4 {
		t.Errorf("a new height: %q", p)
	}
	if p := m.Paint(true); !strings.HasPrefix(p, "\x1b[H\x1b[2J") {
		t.Errorf("full: %q", p)
	}
}

// Presses and motion outside the list (the table's column header, the
// preview, the hint line) do nothing; the wheel over the list moves three.
func TestModelMouseRegions(t *testing.T) {
	for _, table := range []bool{true, false} {
		m := NewModel(0, 0)
		m.Table, m.Flat = table, true
		m.Resize(120, 10)
		m.SetRows(append(testItems(), testItems()...))
		g := m.Geometry()
		press := func(x, y int) Action {
			return m.Mouse(tui.Event{Mouse: tui.MousePress, Button: tui.ButtonLeft, X: x, Y: y})
		}
		move := func(x, y int) { m.Mouse(tui.Event{Mouse: tui.MouseMotion, Button: tui.ButtonNone, X: x, Y: y}) }
		if table {
			press(3, 0) // the column header
			move(3, 0)
		} else {
			press(g.listW+5, g.top+2) // the preview
			move(g.listW+5, g.top+2)
		}
		press(3, 9) // the hint line
		if m.list.Cursor != 0 || m.list.Hover() != -1 || m.Selected() != "%1" {
			t.Errorf("table=%v: a press outside the list: cursor %d hover %d", table, m.list.Cursor, m.list.Hover())
		}
		move(3, g.top+1)
		if m.list.Hover() != 1 {
			t.Errorf("table=%v: motion over row 1 hovers %d", table, m.list.Hover())
		}
		if a := press(3, g.top+2); a != None || m.list.Cursor != 2 || m.Selected() != m.lines[2].pane {
			t.Errorf("table=%v: press on row 2: %d, cursor %d, pane %s", table, a, m.list.Cursor, m.Selected())
		}
		if a := press(3, g.top+2); a != Jump {
			t.Errorf("table=%v: a press on the selected row: %d, want Jump", table, a)
		}
		if a := m.Mouse(tui.Event{Mouse: tui.MousePress, Button: tui.ButtonRight, X: 3, Y: g.top + 2}); a != None {
			t.Errorf("table=%v: a right press: %d", table, a)
		}
		m.Mouse(tui.Event{Mouse: tui.WheelDown, X: 3, Y: g.top})
		if m.list.Cursor != 5 || m.Selected() != m.lines[5].pane {
			t.Errorf("table=%v: wheel down: cursor %d", table, m.list.Cursor)
		}
		m.Mouse(tui.Event{Mouse: tui.WheelUp, X: g.listW + 5, Y: g.top})
		if !table && m.list.Cursor != 5 {
			t.Errorf("wheel over the preview moved the list: %d", m.list.Cursor)
		}
	}
}

// TestModelNotices: while files are broken watch says so above its key
// hint, one line per file (issue 27 item 22), in yellow, each a single
// line clipped to the width; the body gives up the rows (at most a third
// of it), clicks still land on the row drawn there, and mending the files
// gives the rows back.
func TestModelNotices(t *testing.T) {
	got := Notices([]string{"config /home/u/.config/tma/config.toml:2: picker.working.glyph: expected string (the previous config and manifests stay in use)", "",
		"/a/mine.toml:\n identity.process_names: at least one name is required\x1b[31m (manifest skipped)"}, "/home/u", 0)
	if len(got) != 2 || got[0] != "\x1b[33m⚠ config ~/.config/tma/config.toml:2: picker.working.glyph: expected string (the previous config and manifests stay in use)\x1b[0m" ||
		tui.Strip(got[1]) != "⚠ /a/mine.toml: identity.process_names: at least one name is required [31m (manifest skipped)" {
		t.Fatalf("Notices = %q", got)
	}
	// Wrapped at a width: continuation lines indented, at most
	// NoticeLines, the last cut with …; a word wider than the line is cut.
	wrapped := Notices([]string{"aaaa bbbb cccc dddd eeee ffff gggg hhhh", "/a/very/long/path/that/does/not/fit ok"}, "", 10)
	var plain []string
	for _, l := range wrapped {
		plain = append(plain, tui.Strip(l))
	}
	if want := []string{"⚠ aaaa", "  bbbb", "  cccc dd…", "⚠ /a/very…", "  ok"}; strings.Join(plain, "|") != strings.Join(want, "|") {
		t.Errorf("wrapped = %q, want %q", plain, want)
	}
	for _, l := range plain {
		if tui.Width(l) > 10 {
			t.Errorf("a wrapped line of %d cells: %q", tui.Width(l), l)
		}
	}
	m := model(120, 12)
	before := m.Geometry().height
	m.SetProblems([]string{"config /home/u/.config/tma/config.toml:2: picker.working.glyph: expected string", "/a/mine.toml: identity.process_names: at least one name is required (manifest skipped)"}, "/home/u")
	frame := m.Frame()
	if len(frame) != 12 || !strings.Contains(tui.Strip(frame[9]), "⚠ config ~/.config/tma/config.toml:2") || !strings.Contains(tui.Strip(frame[10]), "⚠ /a/mine.toml: identity") ||
		!strings.Contains(tui.Strip(frame[11]), "q quit") {
		t.Fatalf("frame with notices:\n%s", strings.Join(frame, "\n"))
	}
	for _, l := range frame {
		if tui.Width(l) != 120 {
			t.Errorf("a line of %d cells: %q", tui.Width(l), l)
		}
	}
	if h := m.Geometry().height; h != before-2 {
		t.Errorf("body height %d with two notices, %d without", h, before)
	}
	// A click on the last agent row (the (no repo) group's %2, row 4) selects it.
	m.Mouse(tui.Event{Mouse: tui.MousePress, Button: tui.ButtonLeft, X: 2, Y: 4})
	if m.Selected() != "%2" {
		t.Errorf("a click on row 4 selected %q", m.Selected())
	}
	m.SetProblems([]string{"1", "2", "3", "4", "5", "6"}, "")
	if n := m.Geometry().notices; n != 3 {
		t.Errorf("%d notice rows of 11, want a third: 3", n)
	}
	m.SetProblems(nil, "")
	if h := m.Geometry().height; h != before {
		t.Errorf("body height %d after mending, want %d", h, before)
	}
}
