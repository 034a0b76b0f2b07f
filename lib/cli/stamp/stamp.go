package stampcmd

import (
	"fmt"
	"io"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon/daemonpath"
	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/tmux"
)

type cli struct {
	common.Globals
	DryRun    bool `name:"dry-run" help:"plan the writes and print them to stderr; write nothing."`
	StatusRun bool `name:"status-run" hidden:"" help:"this cycle is a tma status run: mark its time (the server's .status file, @tma_status_at) for doctor's ambient line."`
	Notify    bool `name:"notify" help:"fire [notify] for the episodes this stage's commits win, with the daemon-only triggers (stall, context_high, osc_progress): what the daemon runs."`
	Folds     bool `name:"folds" hidden:"" help:"no tma-fold runs before this stage (the dispatcher's ls, status, wait and subscribe): this stage folds and says the load warnings the fold would."`
	Writes    bool `name:"writes" hidden:"" help:"tma debug stamp: print the tmux lines this stage sends (with --dry-run, would send) on stdout, one per line, instead of records; as the pipeline's last stage, an upstream failure is said on stderr and is the exit code."`
}

// Run is tma-stamp's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-stamp", stdin, stdout, stderr)
	var c cli
	if _, code, ok := common.Parse(e, &c, "Commit folded verdicts (NDJSON on stdin) to tmux pane options with guarded writes; emit rows. Raw observations are folded first.", args); !ok {
		return code
	}
	var nt *notifier
	if c.Notify {
		nt = newNotifier(e)
		defer nt.close()
	}
	// In a pipeline the fold says the load warnings and the stamp loads
	// quietly, unless it is the pipeline's fold as well.
	le := e.Quieted()
	if c.Folds {
		le = e
	}
	// tma debug stamp: the lines go to stdout, the records nowhere, and
	// the first error of the pipeline (the scan's, or this commit's) is
	// this stage's to say, as the last stage.
	show := stderr
	var upstream *record.Error
	if c.Writes {
		q := *le
		q.Stdout, le, show = io.Discard, &q, stdout
	}
	code := common.Filter(le, &c.Globals, func(loaded *common.Loaded, g *record.Group, w *record.Writer) error {
		if g.Cycle == nil {
			if len(g.Errors) > 0 && upstream == nil {
				upstream = g.Errors[0]
			}
			w.WriteGroup(g)
			return nil
		}
		// Fed raw scan records (the cron polling floor), fold here with
		// the same library; folded records keep their verdicts.
		fold.Pending(g.Panes, loaded.Manifests.Get, loaded.Tuning(), false)
		plan, err := stamp.Build(g.Cycle, g.Panes, g.Cycle.LastPollMS)
		if err != nil {
			return err
		}
		lines, nonce := plan.Lines, ""
		if c.StatusRun {
			lines = stamp.WithStatusRun(g.Cycle, lines)
			if !c.DryRun && g.Cycle.Server != "" {
				// Every run marks its time for doctor's ambient line, in a
				// file (no redraw); @tma_status_at follows every 30 s.
				_ = daemonpath.MarkStatusRun(daemonpath.ForEnv(g.Cycle.Server, e.Getenv).StatusRun, time.UnixMilli(g.Cycle.NowMS))
			}
		}
		if nt != nil {
			lines, nonce = nt.arm(loaded.Config, func(a string) bool { return loaded.Manifests.Get(a).CoversContext() }, g, lines)
		}
		if c.DryRun || c.Writes {
			for _, l := range lines {
				_, _ = io.WriteString(show, l+"\n")
			}
		}
		if !c.DryRun {
			tc := c.Tmux(e, loaded.Config)
			if g.Cycle.Server != "" {
				// Write to the server the cycle observed, however it was named.
				tc.Target = tmux.Target{SocketPath: g.Cycle.Server}
			}
			if len(lines) > 0 {
				out, _, err := tc.Batch(common.Background(), lines)
				if err != nil {
					g.Errors = append(g.Errors, &record.Error{Tool: e.Tool, Message: common.DescribeTmuxError(e, tc, err)})
				} else if nt != nil {
					nt.fire(loaded.Config, tc, out, nonce, g.Cycle.NowMS)
				}
			}
			if nt != nil {
				nt.windows(loaded.Config, tc, g, plan.Rows)
			}
		}
		if len(g.Errors) > 0 && upstream == nil {
			upstream = g.Errors[0] // the scan's, or this commit's own
		}
		w.WriteGroup(&record.Group{Cycle: g.Cycle, Rows: plan.Rows, Other: g.Other, Errors: g.Errors, End: g.End})
		return nil
	})
	if c.Writes && code == common.ExitOK && upstream != nil {
		// The last stage says the pipeline's failure, once.
		fmt.Fprintf(stderr, "%s: error: %s\n", e.Tool, upstream.Message)
		return upstream.ExitCode()
	}
	return code
}
