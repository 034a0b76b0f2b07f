package scan

import (
	"io"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/record"
	libscan "github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/tmux"
)

type cli struct {
	common.Globals
	Pane       string `name:"pane" placeholder:"ID" help:"observe only this pane (%N)."`
	NoCapture  bool   `name:"no-capture" help:"observe without reading any screen (read-only callers)."`
	CaptureAll bool   `name:"capture-all" help:"read every agent screen, even where the stamp could be reused (debug explain)."`
}

// Run is tma-scan's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-scan", stdin, stdout, stderr)
	var c cli
	if _, code, ok := common.Parse(e, &c, "Observe every pane of a tmux server once and emit NDJSON records (cycle, pane…, end).", args); !ok {
		return code
	}
	w := record.NewWriter(stdout)
	defer w.Flush()
	fail := func(msg string, code int) int {
		_ = w.Write(&record.Error{Tool: "tma-scan", Message: msg, Code: code})
		if f, ok := stdout.(interface{ Fd() uintptr }); ok && isatty.IsTerminal(f.Fd()) {
			e.Errorf("%s", msg)
		}
		return code
	}
	if c.Pane != "" && !tmux.ValidPaneID(c.Pane) {
		e.Errorf("invalid pane id %q (want %%N)", c.Pane)
		return common.ExitUsage
	}
	l, err := c.Load(e)
	if err != nil {
		return fail(err.Error(), common.ExitFail)
	}
	tc := c.Tmux(e, l.Config)
	res, err := libscan.Run(common.Background(), tc, libscan.Options{
		Manifests: l.Manifests, Tuning: l.Tuning(), Host: common.Host(),
		Now: func() int64 { return time.Now().UnixMilli() }, Pane: c.Pane, NoCapture: c.NoCapture, CaptureAll: c.CaptureAll,
	})
	if err != nil {
		return fail(common.DescribeTmuxError(e, tc, err), common.ExitFail)
	}
	_ = w.Write(res.Cycle)
	for _, p := range res.Panes {
		_ = w.Write(p)
	}
	_ = w.Write(&record.End{NowMS: res.Cycle.NowMS})
	if err := w.Flush(); err != nil {
		return common.ExitFail
	}
	return common.ExitOK
}
