package serve

import (
	"maps"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// LabelEvery is how long the daemon trusts a directory's git labels for
// window names: a branch switch shows within this.
const LabelEvery = 30 * time.Second

// names is [daemon.window_names]' state: what the windows should be
// called after the last cycle, and whether the feature has written.
type names struct {
	on     bool
	want   map[daemon.WindowKey]string
	git    *gitinfo.Resolver
	gitAt  time.Time
	format string
}

// windowNames follows the cycle's rows: when the names the windows should
// have change (an agent's state, one arriving or leaving), one listing of
// the windows and the writes PlanNames gives; an unchanged fleet costs
// nothing. With the feature off (a reload turned it off), every window it
// renamed is given back.
func (d *state) windowNames(rows []*record.Row) {
	wn := d.current().Config.Daemon.WindowNames
	if wn == nil {
		if d.names.on {
			d.names = names{}
			d.enqueue(d.restoreNames)
		}
		return
	}
	if strings.Contains(wn.Format, "{repo}") || strings.Contains(wn.Format, "{branch}") {
		if d.names.git == nil || time.Since(d.names.gitAt) > LabelEvery {
			d.names.git, d.names.gitAt = gitinfo.New(), time.Now()
		}
		for _, r := range rows {
			if l := d.names.git.Resolve(r.CWD); l != nil {
				repo, branch := l.Repo, l.Branch
				r.Row.Repo, r.Row.Branch = &repo, &branch
			}
		}
	}
	want := daemon.WindowNames(wn.Format, rows)
	if d.names.on && d.names.format == wn.Format && maps.Equal(want, d.names.want) {
		return
	}
	d.names.on, d.names.want, d.names.format = true, want, wn.Format
	d.enqueue(func(tc *tmux.Client) { d.applyNames(tc, want) })
}

func (d *state) applyNames(tc *tmux.Client, want map[daemon.WindowKey]string) {
	out, _, err := tc.Run(d.ctx, "", "list-windows", "-a", "-F", daemon.WindowFormat)
	if err != nil {
		d.o.Log.Printf("window names: listing the windows: %v", err)
		return
	}
	lines := daemon.PlanNames(daemon.ParseWindows(out), want)
	if len(lines) == 0 {
		return
	}
	if stderr, err := tc.Exec(d.ctx, lines); err != nil || strings.TrimSpace(stderr) != "" {
		d.o.Log.Printf("window names: %v %s", err, strings.TrimSpace(stderr))
	}
}

// restoreNames gives every window tma renamed its name and
// automatic-rename back.
func (d *state) restoreNames(tc *tmux.Client) { d.applyNames(tc, nil) }
