package record

import "strings"

// IsControl reports whether r is a C0 or C1 control or DEL: bytes a
// terminal may act on rather than draw. A pane title is written by the
// pane's own program, so every surface that draws one (a table, a menu,
// the dashboard) keeps these out.
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f
}

// Printable is s with every control (IsControl) replaced by a space, so a
// column keeps its width and a line stays one line.
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// OneLine is s with every run of controls folded into one space and the
// ends trimmed of them: a menu entry or a message line.
func OneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, IsControl), " ")
}
