package screen

import (
	"fmt"
	"strconv"
	"strings"
)

// Screen is one capture of a pane: the raw `capture-pane -p -e` text, the pane title and the
// pane height. The stripped text and its lines are computed once, on first use, by the
// pointer methods.
type Screen struct {
	Raw    string
	Title  string
	Height int

	stripped bool
	lines    []string
}

// Text returns the capture with escape sequences removed.
func (s *Screen) Text() string {
	return strings.Join(s.Lines(), "\n")
}

// Lines returns the capture's lines, escape sequences removed. The newline that ends the
// last line does not make an extra empty line.
func (s *Screen) Lines() []string {
	if !s.stripped {
		s.lines = SplitLines(StripANSI(s.Raw))
		s.stripped = true
	}
	return s.lines
}

// SplitLines splits text into lines; one trailing newline ends the last line rather than
// starting an empty one.
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	text = strings.TrimSuffix(text, "\n")
	return strings.Split(text, "\n")
}

// Kind names a region of a screen.
type Kind int

const (
	// TailLines is the last N lines of the capture as given.
	TailLines Kind = iota + 1
	// BottomNonEmpty is the last N lines after trailing blank rows are dropped.
	BottomNonEmpty
	// Visible is the last Height lines: the live viewport.
	Visible
	// Title is the pane title, as a single line.
	Title
)

// Region is a parsed region spec.
type Region struct {
	Kind Kind
	N    int // line count for TailLines and BottomNonEmpty
}

// ParseRegion parses a region spec: tail_lines(N), bottom_non_empty_lines(N), visible or
// title, with N a positive integer.
func ParseRegion(spec string) (Region, error) {
	switch spec {
	case "visible":
		return Region{Kind: Visible}, nil
	case "title":
		return Region{Kind: Title}, nil
	}
	for _, f := range []struct {
		name string
		kind Kind
	}{{"tail_lines", TailLines}, {"bottom_non_empty_lines", BottomNonEmpty}} {
		rest, ok := strings.CutPrefix(spec, f.name+"(")
		if !ok {
			continue
		}
		arg, ok := strings.CutSuffix(rest, ")")
		if !ok {
			return Region{}, fmt.Errorf("region %q: missing closing parenthesis", spec)
		}
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n <= 0 {
			return Region{}, fmt.Errorf("region %q: line count must be a positive integer", spec)
		}
		return Region{Kind: f.kind, N: n}, nil
	}
	return Region{}, fmt.Errorf("unknown region %q (want tail_lines(N), bottom_non_empty_lines(N), visible or title)", spec)
}

// String returns the spec that ParseRegion reads back.
func (r Region) String() string {
	switch r.Kind {
	case TailLines:
		return fmt.Sprintf("tail_lines(%d)", r.N)
	case BottomNonEmpty:
		return fmt.Sprintf("bottom_non_empty_lines(%d)", r.N)
	case Visible:
		return "visible"
	case Title:
		return "title"
	}
	return "invalid"
}

// Region returns the lines of the region r, escape sequences removed. The slice shares
// memory with the screen's cache: do not modify it.
func (s *Screen) Region(r Region) []string {
	switch r.Kind {
	case Title:
		return []string{StripANSI(s.Title)}
	case TailLines:
		return last(s.Lines(), r.N)
	case BottomNonEmpty:
		lines := s.Lines()
		end := len(lines)
		for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		return last(lines[:end], r.N)
	case Visible:
		if s.Height <= 0 {
			return s.Lines()
		}
		return last(s.Lines(), s.Height)
	}
	return nil
}

func last(lines []string, n int) []string {
	if n >= len(lines) {
		return lines
	}
	return lines[len(lines)-n:]
}
