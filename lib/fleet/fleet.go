package fleet

import (
	"context"
	"sort"

	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/tmux"
)

// Options configure one cycle.
type Options struct {
	Manifests *manifest.Set
	Tuning    fold.Tuning
	Host      string
	Now       func() int64 // epoch ms
	// Git, when set, resolves the rows' repo/branch labels (memoized per
	// directory by the resolver).
	Git *gitinfo.Resolver
	// NoCommit plans the writes but does not run them (tests, dry runs).
	NoCommit bool
	// Pane scopes the cycle to one pane (still one list call; captures and
	// writes for that pane only, no rollups): the act broker's re-read.
	Pane string
}

// Fleet is one committed cycle.
type Fleet struct {
	Cycle *record.Cycle
	// Panes is every pane the cycle observed, agent or not.
	Panes []*record.Pane
	// Rows are the agent rows in pick order (see PickOrder).
	Rows []*record.Row
	// Lines are the guarded writes the cycle planned (and ran unless
	// NoCommit).
	Lines []string
	// CommitErr is a failed commit: the rows are still this cycle's
	// verdicts, so a surface may show them.
	CommitErr error
}

// Run observes, folds, commits and resolves one cycle against the server c
// names. The commit goes to the server the cycle observed, however c named
// it (as tma-stamp does).
func Run(ctx context.Context, c *tmux.Client, o Options) (*Fleet, error) {
	res, err := scan.Run(ctx, c, scan.Options{Manifests: o.Manifests, Tuning: o.Tuning, Host: o.Host, Now: o.Now, Pane: o.Pane})
	if err != nil {
		return nil, err
	}
	for _, p := range res.Panes {
		if p.Verdict == nil {
			p.Verdict = fold.Fold(p, o.Manifests.Get(p.Agent), o.Tuning, false)
		}
	}
	pl, err := stamp.Build(res.Cycle, res.Panes, res.Cycle.LastPollMS)
	if err != nil {
		return nil, err
	}
	f := &Fleet{Cycle: res.Cycle, Panes: res.Panes, Rows: pl.Rows, Lines: pl.Lines}
	if !o.NoCommit && len(pl.Lines) > 0 {
		w := *c
		if res.Cycle.Server != "" {
			w.Target = tmux.Target{SocketPath: res.Cycle.Server}
		}
		_, f.CommitErr = w.Exec(ctx, pl.Lines)
		c.Spawns += w.Spawns - c.Spawns
	}
	if o.Git != nil {
		for _, r := range f.Rows {
			if l := o.Git.Resolve(r.CWD); l != nil {
				repo, branch, wt := l.Repo, l.Branch, l.Worktree
				r.Row.Repo, r.Row.Branch, r.Row.Worktree = &repo, &branch, &wt
			}
		}
	}
	PickOrder(f.Rows)
	return f, nil
}

// Rank is a class's place in attention order.
var Rank = map[string]int{"blocked": 0, "done": 1, "working": 2, "idle": 3, "unknown": 4}

// PickOrder sorts rows in attention order (blocked, done, working, idle,
// unknown), longest in state first within a class (since ascending; a row
// with no since last), then by session name, window and pane index.
func PickOrder(rows []*record.Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if ra, rb := Rank[a.Row.Class()], Rank[b.Row.Class()]; ra != rb {
			return ra < rb
		}
		sa, sb := since(a), since(b)
		if sa != sb {
			return sa < sb
		}
		if a.TmuxSession != b.TmuxSession {
			return a.TmuxSession < b.TmuxSession
		}
		if a.Window != b.Window {
			return a.Window < b.Window
		}
		return a.Index < b.Index
	})
}

func since(r *record.Row) int64 {
	if r.Row.Since == nil || *r.Row.Since <= 0 {
		return 1<<63 - 1
	}
	return *r.Row.Since
}

// Row returns the row of a pane, nil when it holds no agent.
func (f *Fleet) Row(pane string) *record.Row {
	for _, r := range f.Rows {
		if r.Row.Pane == pane {
			return r
		}
	}
	return nil
}

// Pane returns the observation of a pane, nil when the server has no such
// pane.
func (f *Fleet) Pane(id string) *record.Pane {
	for _, p := range f.Panes {
		if p.Pane == id {
			return p
		}
	}
	return nil
}
