package stamp

import (
	"io"

	"github.com/tmaproject/tma/lib/cli/common"
	clifold "github.com/tmaproject/tma/lib/cli/fold"
	"github.com/tmaproject/tma/lib/record"
	libstamp "github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/tmux"
)

type cli struct {
	common.Globals
	DryRun bool `name:"dry-run" help:"plan the writes and print them to stderr; write nothing."`
}

// Run is tma-stamp's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-stamp", stdin, stdout, stderr)
	var c cli
	if _, code, ok := common.Parse(e, &c, "Commit folded verdicts (NDJSON on stdin) to tmux pane options with guarded writes; emit rows. Raw observations are folded first.", args); !ok {
		return code
	}
	// In a follow pipeline this filter lives as long as its reader does.
	common.DieWithReader(stdout)
	w := record.NewWriter(stdout)
	defer w.Flush()
	rl, err := c.NewReloader(e)
	if err != nil {
		_ = w.Write(&record.Error{Tool: e.Tool, Message: err.Error()})
		e.Errorf("%v", err)
		return common.ExitFail
	}
	fail := func(msg string) int {
		_ = w.Write(&record.Error{Tool: e.Tool, Message: msg})
		e.Errorf("%s", msg)
		return common.ExitFail
	}
	err = common.ReadGroups(e, func(g *common.Group) error {
		if g.Cycle == nil {
			common.WriteGroup(w, g)
			return w.Flush()
		}
		// Fed raw scan records (the cron polling floor), fold here with
		// the same library; folded records keep their verdicts.
		loaded := rl.Get()
		clifold.Apply(g, loaded, false)
		plan, err := libstamp.Build(g.Cycle, g.Panes, g.Cycle.LastPollMS)
		if err != nil {
			return err
		}
		if c.DryRun {
			for _, l := range plan.Lines {
				_, _ = io.WriteString(stderr, l+"\n")
			}
		} else if len(plan.Lines) > 0 {
			tc := c.Tmux(e, loaded.Config)
			if g.Cycle.Server != "" {
				// Write to the server the cycle observed, however it was named.
				tc.Target = tmux.Target{SocketPath: g.Cycle.Server}
			}
			if _, err := tc.Exec(common.Background(), plan.Lines); err != nil {
				g.Errors = append(g.Errors, &record.Error{Tool: e.Tool, Message: common.DescribeTmuxError(e, tc, err)})
			}
		}
		out := &common.Group{Cycle: g.Cycle, Rows: plan.Rows, Other: g.Other, Errors: g.Errors, End: g.End}
		common.WriteGroup(w, out)
		return w.Flush()
	})
	if err != nil {
		return fail(err.Error())
	}
	return common.ExitOK
}
