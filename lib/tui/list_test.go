package tui

import "testing"

// lines: a header, three agents, a header, two agents.
func grouped() []bool { return []bool{false, true, true, true, false, true, true} }

func TestListStartsOnFirstSelectable(t *testing.T) {
	l := NewList(10)
	l.SetLines(grouped(), -1)
	if l.Cursor != 1 {
		t.Fatalf("cursor %d, want 1 (the header is not selectable)", l.Cursor)
	}
	l.SetLines(grouped(), 4) // a header: the nearest agent (ties go up)
	if l.Cursor != 3 {
		t.Errorf("cursor on header 4 settles on %d, want 3", l.Cursor)
	}
	l.SetLines(nil, 0)
	if l.Cursor != -1 {
		t.Errorf("empty list cursor %d", l.Cursor)
	}
	l.Move(1)
	l.Wheel(1)
	if l.Click(0) || l.Hover() != -1 {
		t.Error("an empty list reacts")
	}
}

func TestListMoveSkipsHeaders(t *testing.T) {
	l := NewList(10)
	l.SetLines(grouped(), -1)
	l.Move(3)
	if l.Cursor != 5 {
		t.Errorf("down 3 from 1: %d, want 5", l.Cursor)
	}
	l.Move(-1)
	if l.Cursor != 3 {
		t.Errorf("up over a header: %d, want 3", l.Cursor)
	}
	l.Move(100)
	if l.Cursor != 6 {
		t.Errorf("down past the end: %d, want 6", l.Cursor)
	}
	l.First()
	if l.Cursor != 1 {
		t.Errorf("First: %d", l.Cursor)
	}
	l.Last()
	if l.Cursor != 6 {
		t.Errorf("Last: %d", l.Cursor)
	}
}

func TestListHover(t *testing.T) {
	l := NewList(10)
	l.SetLines(grouped(), -1)
	l.Pointer(2)
	if l.Hover() != 2 {
		t.Errorf("hover on an agent: %d", l.Hover())
	}
	l.Pointer(4)
	if l.Hover() != -1 {
		t.Errorf("hover on a header underlines %d", l.Hover())
	}
	l.Pointer(9) // past the last line
	if l.Hover() != -1 {
		t.Errorf("hover past the end: %d", l.Hover())
	}
	l.Pointer(3)
	l.Key()
	if l.Hover() != -1 {
		t.Errorf("a key did not drop the hover: %d", l.Hover())
	}
	l.Pointer(3)
	if l.Hover() != 3 {
		t.Errorf("the next move did not bring it back: %d", l.Hover())
	}
	l.Pointer(-1)
	if l.Hover() != -1 {
		t.Errorf("pointer off the list still hovers %d", l.Hover())
	}
}

func TestListClickSelectsThenJumps(t *testing.T) {
	l := NewList(10)
	l.SetLines(grouped(), -1)
	if l.Click(5) {
		t.Error("the first click on a row jumped")
	}
	if l.Cursor != 5 {
		t.Errorf("click did not select: %d", l.Cursor)
	}
	if !l.Click(5) {
		t.Error("a click on the selected row did not jump")
	}
	if l.Click(4) || l.Cursor != 5 {
		t.Errorf("a click on a header did something: cursor %d", l.Cursor)
	}
	if l.Click(20) || l.Cursor != 5 {
		t.Errorf("a click past the end did something: cursor %d", l.Cursor)
	}
	if l.Click(1) || l.Cursor != 1 {
		t.Errorf("click on the first agent: %d", l.Cursor)
	}
}

func TestListWheel(t *testing.T) {
	sel := make([]bool, 20)
	for i := range sel {
		sel[i] = true
	}
	sel[4] = false // one header in the way
	l := NewList(5)
	l.SetLines(sel, -1)
	l.Wheel(1)
	if l.Cursor != 3 {
		t.Errorf("wheel down from 0: %d, want 3", l.Cursor)
	}
	l.Wheel(1)
	if l.Cursor != 7 {
		t.Errorf("wheel down over the header: %d, want 7", l.Cursor)
	}
	l.Wheel(-1)
	if l.Cursor != 3 {
		t.Errorf("wheel up: %d, want 3", l.Cursor)
	}
	l.Wheel(-1)
	if l.Cursor != 0 {
		t.Errorf("wheel up clamps at the top: %d", l.Cursor)
	}
	for i := 0; i < 10; i++ {
		l.Wheel(1)
	}
	if l.Cursor != 19 {
		t.Errorf("wheel down clamps at the end: %d", l.Cursor)
	}
	if l.Top != 15 {
		t.Errorf("the selection is not shown: top %d", l.Top)
	}
}

func TestListScrollShowsHeader(t *testing.T) {
	l := NewList(3)
	l.SetLines([]bool{false, true, true, true, false, true, true, true, true}, -1)
	if l.Top != 0 {
		t.Fatalf("top %d", l.Top)
	}
	l.Move(3) // line 5, first of the second group, at the bottom
	if l.Cursor != 5 || l.Top != 3 {
		t.Errorf("cursor %d top %d, want 5 and 3", l.Cursor, l.Top)
	}
	l.Last()
	if l.Top != 6 {
		t.Errorf("last: top %d, want 6", l.Top)
	}
	l.Move(-3) // line 5 again, now scrolling up: its header comes along
	if l.Cursor != 5 || l.Top != 4 {
		t.Errorf("cursor %d top %d, want 5 and 4 (its header shown)", l.Cursor, l.Top)
	}
	l.First()
	if l.Top != 0 {
		t.Errorf("first: top %d, want 0 (header shown)", l.Top)
	}
	// The hover follows the row under a still pointer as the list scrolls.
	l.Pointer(1)
	h := l.Hover()
	l.Last()
	if l.Hover() == h {
		t.Errorf("hover did not follow the scroll")
	}
}
