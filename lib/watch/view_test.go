package watch

import (
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/tui"

	"github.com/tmaproject/tma/lib/testkit"
)

func testItems() []Item {
	return []Item{
		{Pane: "%1", glyph: "⚑", color: "31", agent: "claude", locator: "s:1.0", age: "5s", repo: "api", title: "fix the 日本 tests"},
		{Pane: "%2", glyph: "●", color: "33", agent: "codex", locator: "s:2.0", age: "1m", title: "no repo"},
		{Pane: "%3", glyph: "○", color: "32", agent: "claude", locator: "s:3.0", age: "2h", repo: "api", title: "idle"},
	}
}

func TestWatchLinesGroups(t *testing.T) {
	got := watchLines(testItems(), 120, false, true)
	var panes []string
	for _, l := range got {
		if l.pane == "" {
			panes = append(panes, tui.Strip(l.text))
		} else {
			panes = append(panes, l.pane)
		}
	}
	want := "▸ api %1 %3 ▸ (no repo) %2"
	if strings.Join(panes, " ") != want {
		t.Errorf("grouped lines: %q, want %q", strings.Join(panes, " "), want)
	}
	if flat := watchLines(testItems(), 120, false, false); len(flat) != 3 || flat[0].pane != "%1" {
		t.Errorf("flat lines: %+v", flat)
	}
}

func view(cols, rows int, table bool, preview []string) *watchView {
	lines := watchLines(testItems(), cols, table, cols >= Wide)
	l := tui.NewList(watchGeometry(cols, rows, table, 0).height)
	sel := make([]bool, len(lines))
	for i, ln := range lines {
		sel[i] = ln.pane != ""
	}
	l.SetLines(sel, -1)
	return &watchView{cols: cols, rows: rows, table: table, grouped: cols >= Wide, lines: lines, list: l, preview: preview,
		header: tableHeader(measure(testItems()), cols), empty: "no agents"}
}

func TestWatchFrameGeometry(t *testing.T) {
	screen := []string{"\x1b[44mblue background that runs far past the edge of the preview rectangle of this frame" + strings.Repeat("x", 100), "plain", "", ""}
	for _, tc := range []struct {
		cols, rows int
		table      bool
	}{{120, 20, false}, {120, 20, true}, {80, 10, false}, {75, 10, false}, {40, 5, false}, {120, 2, false}} {
		v := view(tc.cols, tc.rows, tc.table, screen)
		rows := v.frame()
		if len(rows) != tc.rows {
			t.Errorf("%dx%d: %d rows", tc.cols, tc.rows, len(rows))
		}
		for i, r := range rows {
			if w := tui.Width(r); w != tc.cols {
				t.Errorf("%dx%d table=%v row %d is %d wide: %q", tc.cols, tc.rows, tc.table, i, w, r)
			}
		}
		all := strings.Join(rows, "\n")
		border := strings.Contains(all, "│")
		if border != (tc.cols >= Wide && !tc.table) {
			t.Errorf("%dx%d table=%v: preview border %v", tc.cols, tc.rows, tc.table, border)
		}
		if tc.rows > 2 && !strings.Contains(tui.Strip(rows[len(rows)-1]), "enter jump") {
			t.Errorf("%dx%d: no key hints on the last row: %q", tc.cols, tc.rows, tui.Strip(rows[len(rows)-1]))
		}
		if tc.cols < Wide && (strings.Contains(all, "▸") || strings.Contains(tui.Strip(rows[len(rows)-1]), "p table")) {
			t.Errorf("%d columns: the narrow body is one flat list without p and g", tc.cols)
		}
	}
	// The preview's colour stops at the frame's right edge: the row ends
	// with a reset.
	v := view(120, 10, false, screen)
	r := v.frame()[0]
	if !strings.HasSuffix(r, "\x1b[0m") {
		t.Errorf("preview row does not end with a reset: %q", r[len(r)-20:])
	}
}

func TestWatchFrameHoverAndSelection(t *testing.T) {
	v := view(120, 10, false, nil) // lines: ▸ api, %1, %3, ▸ (no repo), %2
	rows := v.frame()
	if p := testkit.SGRAttrs(rows[1]); !p["7"] || p["4"] {
		t.Errorf("selected row: %v %q", p, rows[1])
	}
	if p := testkit.SGRAttrs(rows[0]); p["7"] || p["4"] {
		t.Errorf("header row styled: %v", p)
	}
	v.list.Pointer(2)
	rows = v.frame()
	if p := testkit.SGRAttrs(rows[2]); !p["4"] || p["7"] {
		t.Errorf("hovered row: %v %q", p, rows[2])
	}
	v.list.Pointer(3) // a group header: no underline anywhere
	for i, r := range v.frame() {
		if testkit.SGRAttrs(r)["4"] {
			t.Errorf("hover on a header underlines row %d: %q", i, r)
		}
	}
	v.list.Pointer(1) // the selected row: both
	if p := testkit.SGRAttrs(v.frame()[1]); !p["4"] || !p["7"] {
		t.Errorf("hover on the selection: %v", p)
	}
	v.list.Key()
	for i, r := range v.frame() {
		if testkit.SGRAttrs(r)["4"] {
			t.Errorf("a key left the underline on row %d", i)
		}
	}
}

func TestPreviewLines(t *testing.T) {
	got := previewLines("a\n\x1b[31mb\x1b[0m\n\n   \n\x1b[0m\n")
	if len(got) != 2 || got[0] != "a" {
		t.Errorf("previewLines: %q", got)
	}
}

// The table's column header lines up with its rows.
func TestWatchTableHeaderAligned(t *testing.T) {
	its := testItems()
	its[0].branch, its[0].ctx = "main", gauge(42)
	head := tui.Strip(tableHeader(measure(its), 120))
	for _, l := range watchLines(its, 120, true, false) {
		row := tui.Strip(l.text)
		for _, col := range []struct{ name, value string }{{"WHERE", "s:"}, {"AGE", ""}, {"BRANCH", ""}, {"CONTEXT", ""}} {
			if col.value == "" {
				continue
			}
			if h, r := strings.Index(head, col.name), strings.Index(row, col.value); tui.Width(head[:h]) != tui.Width(row[:r]) {
				t.Errorf("%s at column %d in the header, its value at %d:\n%s\n%s", col.name, tui.Width(head[:h]), tui.Width(row[:r]), head, row)
			}
		}
		if tui.Width(row) != tui.Width(head) {
			t.Errorf("row %d wide, header %d:\n%q\n%q", tui.Width(row), tui.Width(head), row, head)
		}
	}
}
