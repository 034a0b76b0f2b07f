package viewcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/view"
)

// hosts is what --host asked for: the remotes being dialled while the
// local pipeline runs, and whether the local rows are wanted at all.
type hosts struct {
	local   bool
	results chan []remote.Result
}

// startHosts resolves --host and asks for the remotes it names in the
// background. With no --host it is nil: local only, as without remotes.
func startHosts(e *common.Env, g *common.Globals, words []string) (*hosts, error) {
	if len(words) == 0 {
		return nil, nil
	}
	cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		return nil, err
	}
	rs, local, err := remote.Hosts(words, cfg, common.Host())
	if err != nil {
		return nil, usageError{err}
	}
	h := &hosts{local: local, results: make(chan []remote.Result, 1)}
	socket := daemon.ForEnv(daemon.ServerPath(tmux.ResolveTarget(g.SocketName, g.SocketPath, e.Getenv), e.Getenv), e.Getenv).Socket
	if e.Getenv("TMA_REMOTE_DIAL") == "1" {
		socket = "" // dial every remote here, whatever daemon runs (docs/daemon.md)
	}
	go func() { h.results <- snapshotAll(socket, rs) }()
	return h, nil
}

// RemoteAskMargin is how much longer than a remote's timeout the daemon
// is given to answer for it: the daemon bounds its own ask by the timeout.
const RemoteAskMargin = 250 * time.Millisecond

// snapshotAll asks every remote at once, each through this server's daemon
// first: one request over the connection the daemon holds, instead of an
// ssh session of its own. With no daemon, one that refuses (older, or its
// config has no such entry) or one that does not answer in time, the
// remote is dialled here as it always was. The daemon words a failure as
// the dial would, so the output is the same either way.
func snapshotAll(socket string, rs []config.Remote) []remote.Result {
	out := make([]remote.Result, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, ok := viaDaemon(socket, r); ok {
				out[i] = res
				return
			}
			out[i] = remote.Snapshot(context.Background(), r, common.Version)
		}()
	}
	wg.Wait()
	return out
}

func viaDaemon(socket string, r config.Remote) (remote.Result, bool) {
	if socket == "" {
		return remote.Result{}, false
	}
	snap, err := daemon.AskRemote(socket, daemon.RemoteAsk{Name: r.Name, Command: r.Command, TimeoutMS: r.Timeout().Milliseconds()}, r.Timeout()+RemoteAskMargin)
	if err != nil {
		return remote.Result{}, false
	}
	res := remote.Result{Name: r.Name, Rows: snap.Rows, Panes: snap.Panes}
	if snap.Error != "" {
		res.Rows, res.Err = nil, errors.New(snap.Error)
	} else if res.Rows == nil {
		res.Rows = []record.AgentRow{}
	}
	return res, true
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
