package common

import (
	"errors"
	"fmt"
	"io"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/record"
)

// Group is one cycle's records as a filter sees them.
type Group struct {
	Cycle  *record.Cycle
	Panes  []*record.Pane
	Rows   []*record.Row
	Errors []*record.Error
	Other  [][]byte // kinds this filter passes through untouched
	End    *record.End
}

// ReadGroups reads NDJSON records and calls fn once per complete cycle (and
// once for records outside any cycle, such as a lone error). It stops at the
// first malformed line with an error naming it, and reports input that ends
// inside a cycle (an upstream stage died) as an error too.
func ReadGroups(e *Env, fn func(*Group) error) error {
	if f, ok := e.Stdin.(interface{ Fd() uintptr }); ok && isatty.IsTerminal(f.Fd()) {
		fmt.Fprintf(e.Stderr, "%s: reading records from the terminal (pipe tma-scan into it; ^D ends)\n", e.Tool)
	}
	r := record.NewReader(e.Stdin)
	g := &Group{}
	open := false
	for {
		line, h, v, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch x := v.(type) {
		case *record.Cycle:
			if open {
				return fmt.Errorf("line %d: cycle opened before the previous one ended", r.Line())
			}
			g = &Group{Cycle: x}
			open = true
		case *record.Pane:
			g.Panes = append(g.Panes, x)
		case *record.Row:
			g.Rows = append(g.Rows, x)
		case *record.Error:
			g.Errors = append(g.Errors, x)
			if !open {
				if err := fn(g); err != nil {
					return err
				}
				g = &Group{}
			}
		case *record.End:
			g.End = x
			if err := fn(g); err != nil {
				return err
			}
			g, open = &Group{}, false
		default:
			_ = h
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

// WriteGroup writes a group back out in cycle order.
func WriteGroup(w *record.Writer, g *Group) {
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

// ErrorCode is the exit code an error record asks the last stage for.
func ErrorCode(x *record.Error) int {
	if x.Code != 0 {
		return x.Code
	}
	return ExitFail
}

// Filter runs a record filter: it reads cycles from stdin, hands each with
// the current config and manifests to each (which writes what it emits), and
// flushes per cycle. A failure, its own or a malformed input, becomes an
// error record on stdout (so it reaches the end of the pipe) and exit 1. In
// a follow pipeline the filter ends with its reader and its parent.
func Filter(e *Env, g *Globals, each func(l *Loaded, grp *Group, w *record.Writer) error) int {
	lifeline.Bind()
	lifeline.DieWithReader(e.Stdout)
	w := record.NewWriter(e.Stdout)
	defer w.Flush()
	fail := func(err error) int {
		_ = w.Write(&record.Error{Tool: e.Tool, Message: err.Error()})
		if !e.Stage {
			e.Errorf("%v", err)
		}
		return ExitFail
	}
	rl, err := g.NewReloader(e)
	if err != nil {
		return fail(err)
	}
	err = ReadGroups(e, func(grp *Group) error {
		if err := each(rl.Get(), grp, w); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return fail(err)
	}
	return ExitOK
}
