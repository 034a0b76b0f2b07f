package common

import (
	"fmt"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/record"
)

// ReadGroups is record.ReadGroups on the command's stdin, saying first
// when that is a terminal (a filter run by hand waits for records).
func ReadGroups(e *Env, fn func(*record.Group) error) error {
	if f, ok := e.Stdin.(interface{ Fd() uintptr }); ok && isatty.IsTerminal(f.Fd()) {
		fmt.Fprintf(e.Stderr, "%s: reading records from the terminal (pipe tma-scan into it; ^D ends)\n", e.Tool)
	}
	return record.ReadGroups(e.Stdin, fn)
}

// Filter runs a record filter: it reads cycles from stdin, hands each with
// the current config and manifests to each (which writes what it emits), and
// flushes per cycle. A failure, its own or a malformed input, becomes an
// error record on stdout (so it reaches the end of the pipe) and exit 1. In
// a follow pipeline the filter ends with its reader and its parent.
func Filter(e *Env, g *Globals, each func(l *Loaded, grp *record.Group, w *record.Writer) error) int {
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
	err = ReadGroups(e, func(grp *record.Group) error {
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
