package record

import (
	"errors"
	"fmt"
	"io"
)

// Group is one cycle's records as a filter sees them: the cycle, its panes
// and rows, the error records, the kinds the filter passes through
// untouched, and the end.
type Group struct {
	Cycle  *Cycle
	Panes  []*Pane
	Rows   []*Row
	Errors []*Error
	Other  [][]byte // kinds this filter passes through untouched
	End    *End
}

// ReadGroups reads NDJSON records and calls fn once per complete cycle (and
// once for records outside any cycle, such as a lone error). It stops at the
// first malformed line with an error naming it, and reports input that ends
// inside a cycle (an upstream stage died) as an error too.
func ReadGroups(in io.Reader, fn func(*Group) error) error {
	r := NewReader(in)
	g := &Group{}
	open := false
	for {
		line, _, v, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch x := v.(type) {
		case *Cycle:
			if open {
				return fmt.Errorf("line %d: cycle opened before the previous one ended", r.Line())
			}
			g = &Group{Cycle: x}
			open = true
		case *Pane:
			g.Panes = append(g.Panes, x)
		case *Row:
			g.Rows = append(g.Rows, x)
		case *Error:
			g.Errors = append(g.Errors, x)
			if !open {
				if err := fn(g); err != nil {
					return err
				}
				g = &Group{}
			}
		case *End:
			g.End = x
			if err := fn(g); err != nil {
				return err
			}
			g, open = &Group{}, false
		default:
			g.Other = append(g.Other, line)
		}
	}
	if open {
		return errors.New("input ended inside a cycle (an earlier stage failed)")
	}
	if len(g.Panes)+len(g.Rows)+len(g.Other) > 0 {
		return errors.New("records outside a cycle")
	}
	return nil
}

// WriteGroup writes a group back out in cycle order: the cycle, panes,
// rows, the passed-through kinds, errors, the end.
func (w *Writer) WriteGroup(g *Group) {
	if g.Cycle != nil {
		_ = w.Write(g.Cycle)
	}
	for _, p := range g.Panes {
		_ = w.Write(p)
	}
	for _, r := range g.Rows {
		_ = w.Write(r)
	}
	for _, o := range g.Other {
		_ = w.WriteRaw(o)
	}
	for _, x := range g.Errors {
		_ = w.Write(x)
	}
	if g.End != nil {
		_ = w.Write(g.End)
	}
}

// ExitCode is the exit code an error record asks the last stage for: its
// code, else 1.
func (x *Error) ExitCode() int {
	if x.Code != 0 {
		return x.Code
	}
	return 1
}
