package viewcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/view"
)

// hosts is what --host asked for: the remotes being dialled while the
// local pipeline runs, and whether the local rows are wanted at all.
type hosts struct {
	local   bool
	results chan []remote.Result
}

// startHosts resolves --host and dials the remotes it names in the
// background. With no --host it is nil: local only, as without remotes.
func startHosts(e *common.Env, configFlag string, words []string) (*hosts, error) {
	if len(words) == 0 {
		return nil, nil
	}
	cfg, _, err := config.LoadResolved(configFlag, config.Env(e.Lookup))
	if err != nil {
		return nil, err
	}
	rs, local, err := remote.Hosts(words, cfg, common.Host())
	if err != nil {
		return nil, usageError{err}
	}
	h := &hosts{local: local, results: make(chan []remote.Result, 1)}
	go func() { h.results <- remote.SnapshotAll(context.Background(), rs, common.Version) }()
	return h, nil
}

type usageError struct{ error }

// merge appends each remote's rows, selected like the local ones and in
// their own ls order, after the local rows (dropped when --host did not
// name this host). A remote that failed costs one line on stderr.
func (h *hosts) merge(e *common.Env, local []*record.Row, sel *selector.Selector, pane string) []*record.Row {
	if h == nil {
		return local
	}
	var out []*record.Row
	if h.local {
		out = local
	}
	for _, res := range <-h.results {
		if res.Err != nil {
			fmt.Fprintf(e.Stderr, "tma: warning: remote %s: %v\n", res.Name, res.Err)
			continue
		}
		var rows []*record.Row
		for _, r := range res.Rows {
			row := remote.Row(r)
			if pane != "" && r.Pane != pane {
				continue
			}
			if sel.Match(row) {
				rows = append(rows, row)
			}
		}
		view.SortLs(rows)
		out = append(out, rows...)
	}
	return out
}

// plain is ls's text form. With --host each line gets a last column, the
// row's host, since the pane ids of two hosts collide; without it the
// lines are the local contract's, unchanged.
func (h *hosts) plain(w io.Writer, rows []*record.Row) error {
	if h == nil {
		return view.LsPlain(w, rows)
	}
	var b bytes.Buffer
	if err := view.LsPlain(&b, rows); err != nil {
		return err
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, r := range rows {
		if i >= len(lines) {
			break
		}
		if _, err := fmt.Fprintf(w, "%s\t%s\n", strings.TrimSuffix(lines[i], "\n"), record.Printable(r.Row.Host)); err != nil {
			return err
		}
	}
	return nil
}
