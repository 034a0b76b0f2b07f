package foldcmd

import (
	"io"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/fold"
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
	return common.Filter(e, &c.Globals, func(l *common.Loaded, g *record.Group, w *record.Writer) error {
		fold.Pending(g.Panes, l.Manifests.Get, l.Tuning(), c.Explain)
		w.WriteGroup(g)
		return nil
	})
}
