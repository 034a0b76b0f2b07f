package waitcmd

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/lifeline"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/stream"
	"github.com/tmaproject/tma/lib/view"
	"github.com/tmaproject/tma/lib/wait"
)

type waitCmd struct {
	selector.Flags
	Pane    string `name:"pane" placeholder:"ID" help:"wait on this pane."`
	Any     bool   `name:"any" help:"wait on any agent pane in scope (never pins)."`
	All     bool   `name:"all" help:"a barrier over every agent pane in scope at the first observation."`
	Count   int    `name:"count" placeholder:"N" help:"a quorum: N panes in scope in a target state (re-read every cycle)."`
	Until   string `name:"until" required:"" placeholder:"STATES" help:"comma-separated: idle, working, blocked, unknown, done."`
	Since   int64  `name:"since" placeholder:"MS" help:"require an episode strictly newer than this episode_ms."`
	Timeout string `name:"timeout" placeholder:"SECS" help:"give up after this long (seconds, or a duration like 90s, 5m): exit 124."`
	JSON    bool   `name:"json" help:"print the matched row as a schema-1 object (the ls document for --all/--count)."`
}

type subscribeCmd struct {
	selector.Flags
	JSON        bool          `name:"json" help:"required: one JSON document per line."`
	ChangesOnly bool          `name:"changes-only" help:"print a snapshot only when it differs from the last one sent."`
	Events      bool          `name:"events" help:"print one record per state transition instead of snapshots."`
	Interval    time.Duration `name:"interval" default:"1s" help:"the poll cadence (the dispatcher hands it to tma-scan --follow)."`
}

type cli struct {
	common.Globals
	Wait      waitCmd      `cmd:"" default:"withargs" help:"block until a target reaches one of --until's states."`
	Subscribe subscribeCmd `cmd:"" help:"stream one ls document (or transition) per cycle."`
}

// Run is tma-wait's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "Consume the follow pipeline: wait for a state, or subscribe to every cycle.", args)
	if !ok {
		return code
	}
	// The consumer end of a follow pipeline dies with the dispatcher, by
	// the signal's default action: nothing of ours needs undoing, and
	// nothing may reach the caller's stdout once the dispatcher is gone.
	lifeline.Bind()
	if strings.HasPrefix(kctx.Command(), "subscribe") {
		return subscribe(e, &c.Globals, &c.Subscribe)
	}
	return runWait(e, &c.Globals, &c.Wait)
}

// cycles reads the pipeline in the background: one slice of rows per
// complete cycle, then the error that ended the stream.
type cycleMsg struct {
	cyc  *record.Cycle
	rows []*record.Row
	err  error
	push bool // push mode: the daemon's wakes drive the stream (push.go)
	own  bool // a cycle this process ran on a wake
}

func read(e *common.Env) <-chan cycleMsg {
	ch := make(chan cycleMsg, 4)
	go func() {
		err := common.ReadGroups(e, func(g *record.Group) error {
			if len(g.Errors) > 0 {
				return errors.New(g.Errors[0].Message)
			}
			if g.Cycle != nil {
				ch <- cycleMsg{cyc: g.Cycle, rows: g.Rows}
			}
			return nil
		})
		if err == nil {
			err = errors.New("the cycle stream ended")
		}
		ch <- cycleMsg{err: err}
		close(ch)
	}()
	return ch
}

func runWait(e *common.Env, g *common.Globals, c *waitCmd) int {
	until, err := selector.ParseStates("--until <STATES>", c.Until)
	if err != nil {
		fmt.Fprintf(e.Stderr, "error: %v\n", err)
		return wait.ExitUsage
	}
	sel, err := c.Flags.Compile()
	if err != nil {
		fmt.Fprintf(e.Stderr, "error: %v\n", err)
		return wait.ExitUsage
	}
	timeout, err := wait.ParseTimeout(c.Timeout)
	if err != nil {
		fmt.Fprintf(e.Stderr, "error: %v\n", err)
		return wait.ExitUsage
	}
	spec := wait.Spec{Until: until, Since: c.Since, Sel: sel, Agent: c.Flags.AgentName(), Count: c.Count}
	if err := spec.Choose(c.Pane, c.Any, c.All); err != nil {
		e.Errorf("%v", err)
		return wait.ExitUsage
	}
	w := wait.New(spec)
	var deadline <-chan time.Time
	if timeout > 0 {
		deadline = time.After(timeout)
	}
	git := gitinfo.New()
	in := feed(e, g)
	for {
		select {
		case <-deadline:
			fmt.Fprintf(e.Stderr, "tma: timed out after %s waiting for %s (exit 124)\n", human(timeout), w.States())
			return wait.ExitTimeout
		case m := <-in:
			if m.err != nil {
				e.Errorf("%v", m.err)
				return wait.ExitFail
			}
			if sel.NeedsGit() {
				label(git, m.rows)
			}
			d := w.Observe(m.rows, m.cyc.Panes)
			if d.Note != "" {
				fmt.Fprintf(e.Stderr, "tma: note: %s\n", d.Note)
			}
			if !d.Done {
				continue
			}
			if d.Code != wait.ExitReached {
				// The manual's wording: "tma: <what happened> (exit N)".
				fmt.Fprintf(e.Stderr, "tma: %s\n", d.Msg)
				return d.Code
			}
			label(git, d.Rows)
			return printRows(e, d, c.JSON)
		}
	}
}

func human(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

func label(git *gitinfo.Resolver, rows []*record.Row) {
	for _, r := range rows {
		if l := git.Resolve(r.CWD); l != nil {
			repo, branch, wt := l.Repo, l.Branch, l.Worktree
			r.Row.Repo, r.Row.Branch, r.Row.Worktree = &repo, &branch, &wt
		}
	}
}

func printRows(e *common.Env, d wait.Decision, asJSON bool) int {
	if view.Reached(e.Stdout, d.Rows, d.Multi, asJSON) != nil {
		return wait.ExitFail
	}
	return wait.ExitReached
}

// LabelEvery is how long a stream trusts a directory's git labels: a branch
// switch shows up within this window.
const LabelEvery = 30 * time.Second

func subscribe(e *common.Env, g *common.Globals, c *subscribeCmd) int {
	if !c.JSON {
		e.Errorf("subscribe needs --json (one JSON document per line is its only output)")
		return wait.ExitUsage
	}
	sel, err := c.Flags.Compile()
	if err != nil {
		fmt.Fprintf(e.Stderr, "error: %v\n", err)
		return wait.ExitUsage
	}
	// A stream ends when its reader does, even between emissions.
	lifeline.DieWithReader(e.Stdout)
	var d stream.Differ
	git, since := gitinfo.New(), time.Now()
	for m := range feed(e, g) {
		if m.err != nil {
			// Only a signal or a closed stdout should end a stream; an ended
			// pipeline (the server went away) is the one other way out.
			e.Errorf("%v", m.err)
			return wait.ExitFail
		}
		if time.Since(since) > LabelEvery {
			git, since = gitinfo.New(), time.Now()
		}
		label(git, m.rows)
		var rows []*record.Row
		for _, r := range m.rows {
			if sel.Match(r) {
				rows = append(rows, r)
			}
		}
		view.SortLs(rows)
		if c.Events {
			for _, ev := range d.Events(rows, m.cyc.NowMS) {
				if err := writeJSON(e.Stdout, ev); err != nil {
					return wait.ExitFail
				}
			}
			continue
		}
		// In push mode a wake's cycle prints what it saw; the belt prints
		// only a change, so a quiet fleet prints nothing.
		if doc := d.Snapshot(rows, stream.Quiet(m.push, m.own, c.ChangesOnly)); doc != nil {
			if _, err := fmt.Fprintf(e.Stdout, "%s\n", doc); err != nil {
				return wait.ExitFail
			}
		}
	}
	return wait.ExitFail
}
