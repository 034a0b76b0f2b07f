package screen

import "strings"

// Tail is the bottom of a capture as a preview shows it: the blank rows
// under the last drawn one dropped (a capture is the whole pane, and an
// agent's prompt often sits above empty rows), then at most rows rows
// from the end, since the picker's preview starts at its top and a 50-row
// pane in a 25-row preview would put the prompt below the fold. A row is
// blank when nothing but colour codes and spaces is on it. rows <= 0 keeps
// every row. Colour codes stay as captured.
func Tail(capture string, rows int) string {
	lines := strings.Split(strings.TrimSuffix(capture, "\n"), "\n")
	end := len(lines)
	for end > 0 && strings.TrimSpace(StripANSI(lines[end-1])) == "" {
		end--
	}
	start := 0
	if rows > 0 && end-rows > start {
		start = end - rows
	}
	if end == 0 {
		return ""
	}
	return strings.Join(lines[start:end], "\n") + "\n"
}
