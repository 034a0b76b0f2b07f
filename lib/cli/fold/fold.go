package fold

import (
	"io"

	"github.com/tmaproject/tma/lib/cli/common"
	libfold "github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/record"
)

type cli struct {
	common.Globals
	Explain bool `name:"explain" help:"record every rule tried and every step of the decision in each verdict."`
}

// Run is tma-fold's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-fold", stdin, stdout, stderr)
	var c cli
	if _, code, ok := common.Parse(e, &c, "Fold pane observations (NDJSON on stdin) into verdicts. Pure: time comes from the records.", args); !ok {
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
	err = common.ReadGroups(e, func(g *common.Group) error {
		Apply(g, rl.Get(), c.Explain)
		common.WriteGroup(w, g)
		return w.Flush()
	})
	if err != nil {
		_ = w.Write(&record.Error{Tool: e.Tool, Message: err.Error()})
		e.Errorf("%v", err)
		return common.ExitFail
	}
	return common.ExitOK
}

// Apply folds every pane of a group that has no verdict yet.
func Apply(g *common.Group, l *common.Loaded, explain bool) {
	for _, p := range g.Panes {
		if p.Verdict == nil || explain {
			p.Verdict = libfold.Fold(p, l.Manifests.Get(p.Agent), l.Tuning(), explain)
		}
	}
}
