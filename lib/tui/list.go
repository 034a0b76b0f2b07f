package tui

// List is the selection and hover of a scrolling list whose lines may be
// unselectable (group headers). It is pure: the caller feeds it keys and
// pointer positions and draws what it says.
//
// The selection (Cursor) is the keyboard's claim, drawn as a reversed
// block; hover is the pointer's, drawn as an underline on the selectable
// line under the pointer. Any key drops the hover until the pointer moves
// again. A click selects; a click on the line already selected asks for
// the jump. The wheel moves the selection three lines.
type List struct {
	selectable []bool
	Cursor     int // the selected line, -1 when nothing is selectable
	Top        int // the first line shown
	Height     int // lines shown, at least 1
	pointer    int // the pointer's row within the shown lines, -1 when dropped
}

// WheelStep is how many selectable lines one wheel notch moves.
const WheelStep = 3

// NewList is an empty list of height lines with no hover.
func NewList(height int) *List {
	return &List{Cursor: -1, Height: max(height, 1), pointer: -1}
}

// Len is the number of lines.
func (l *List) Len() int { return len(l.selectable) }

// Selectable reports whether line i can be selected.
func (l *List) Selectable(i int) bool { return i >= 0 && i < len(l.selectable) && l.selectable[i] }

// SetLines replaces the lines (true: selectable) and puts the cursor on
// line want, or the nearest selectable line to it; -1 is the first.
func (l *List) SetLines(selectable []bool, want int) {
	l.selectable = selectable
	if want < 0 {
		want = 0
	}
	l.Cursor = l.nearest(want)
	l.settle()
}

// SetHeight changes how many lines are shown.
func (l *List) SetHeight(h int) {
	l.Height = max(h, 1)
	l.settle()
}

// nearest is the selectable line closest to i (ties go up), -1 if none.
func (l *List) nearest(i int) int {
	if i >= len(l.selectable) {
		i = len(l.selectable) - 1
	}
	for d := 0; d < len(l.selectable); d++ {
		if l.Selectable(i - d) {
			return i - d
		}
		if l.Selectable(i + d) {
			return i + d
		}
	}
	return -1
}

// Move moves the selection n selectable lines (negative: up), stopping at
// the ends.
func (l *List) Move(n int) {
	if l.Cursor < 0 {
		return
	}
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for i := l.Cursor + step; n > 0 && i >= 0 && i < len(l.selectable); i += step {
		if l.selectable[i] {
			l.Cursor = i
			n--
		}
	}
	l.settle()
}

// Page moves the selection one screen (n = 1 down, -1 up).
func (l *List) Page(n int) { l.Move(n * max(l.Height-1, 1)) }

// First and Last select the first and the last selectable line.
func (l *List) First() { l.Cursor = l.nearest(0); l.settle() }

// Last selects the last selectable line.
func (l *List) Last() { l.Cursor = l.nearest(len(l.selectable) - 1); l.settle() }

// Key is any key press: it drops the hover.
func (l *List) Key() { l.pointer = -1 }

// Pointer moves the pointer to row (within the shown lines); -1 is off the
// list.
func (l *List) Pointer(row int) {
	if row < 0 || row >= l.Height {
		row = -1
	}
	l.pointer = row
}

// Hover is the line the pointer underlines: the selectable line under it,
// else -1 (a header, past the end, off the list, or dropped by a key).
func (l *List) Hover() int {
	if l.pointer < 0 {
		return -1
	}
	if i := l.Top + l.pointer; l.Selectable(i) {
		return i
	}
	return -1
}

// Click is a left press at row. It selects the selectable line there and
// reports true when that line was already selected (the jump). A click on
// a header or past the end does nothing.
func (l *List) Click(row int) bool {
	l.Pointer(row)
	if row < 0 || row >= l.Height {
		return false
	}
	i := l.Top + row
	if !l.Selectable(i) {
		return false
	}
	if i == l.Cursor {
		return true
	}
	l.Cursor = i
	l.settle()
	return false
}

// Wheel moves the selection WheelStep lines per notch (negative: up),
// clamped at the ends.
func (l *List) Wheel(notches int) { l.Move(notches * WheelStep) }

// settle scrolls so the selection is shown, with the header above it when
// it is the first of its group, and keeps Top in range.
func (l *List) settle() {
	if l.Cursor >= 0 {
		if l.Cursor < l.Top {
			l.Top = l.Cursor
		}
		if l.Cursor >= l.Top+l.Height {
			l.Top = l.Cursor - l.Height + 1
		}
		// Show the header line just above the selection when they fit.
		if l.Top > 0 && l.Top == l.Cursor && !l.Selectable(l.Top-1) && l.Height > 1 {
			l.Top--
		}
	}
	if m := len(l.selectable) - l.Height; l.Top > m {
		l.Top = max(m, 0)
	}
	if l.Top < 0 {
		l.Top = 0
	}
}
