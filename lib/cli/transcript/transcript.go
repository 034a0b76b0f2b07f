package transcriptcmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/transcript/grammar"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/transcript"
)

// MaxLast bounds --last: the header budget would cut a longer page anyway.
const MaxLast = 1000

// Options the command reads of the pane, in one display-message.
var paneOptions = []string{"pane_current_path", "@agent_name", "@agent_session", "@agent_transcript"}

// Run is tma-transcript's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-transcript", stdin, stdout, stderr)
	var c grammar.CLI
	if _, code, ok := common.Parse(e, &c, "Read an agent's own transcript: events newest first, paged by cursor, within fixed budgets.", args); !ok {
		return code
	}
	t := c.Transcript
	if t.Last < 1 || t.Last > MaxLast {
		e.Errorf("--last %d: give 1 to %d", t.Last, MaxLast)
		return common.ExitUsage
	}
	pane := t.Pane
	if pane == "" {
		pane = e.Getenv("TMUX_PANE")
	}
	if pane == "" {
		e.Errorf("--pane: name the pane (%%N), or run inside tmux")
		return common.ExitUsage
	}
	if !tmux.ValidPaneID(pane) {
		e.Errorf("--pane %q: a pane id is %%N", pane)
		return common.ExitUsage
	}
	cfg, _, err := config.LoadResolved(c.Config, config.Env(e.Lookup))
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	tc := c.Tmux(e, cfg)
	opts, err := tc.PaneOptions(common.Background(), pane, paneOptions)
	if errors.Is(err, tmux.ErrPaneGone) {
		e.Errorf("no such pane %s", pane)
		return common.ExitVanish
	}
	if err != nil {
		e.Errorf("%s", common.DescribeTmuxError(e, tc, err))
		return common.ExitFail
	}
	home, _ := os.UserHomeDir()
	if h := e.Getenv("HOME"); h != "" {
		home = h
	}
	p := transcript.Pane{ID: pane, Agent: opts["@agent_name"], Session: opts["@agent_session"],
		Transcript: opts["@agent_transcript"], CWD: opts["pane_current_path"]}
	req := transcript.Request{Last: t.Last, Before: t.Before, Event: t.Event, Headers: t.Headers}
	doc, ref := transcript.Read(p, transcript.Env{Home: home, Getenv: e.Getenv}, req)
	if ref != nil {
		if t.JSON {
			b, err := transcript.RefusalDocument(pane, ref)
			if err != nil {
				e.Errorf("%v", err)
				return common.ExitFail
			}
			fmt.Fprintf(e.Stdout, "%s\n", b)
		} else {
			fmt.Fprintf(e.Stderr, "%s: %s: %s\n", e.Tool, ref.Code, ref.Message)
		}
		return common.ExitRefused
	}
	if t.JSON {
		b, err := doc.MarshalJSON()
		if err != nil {
			e.Errorf("%v", err)
			return common.ExitFail
		}
		fmt.Fprintf(e.Stdout, "%s\n", b)
		return common.ExitOK
	}
	if t.Event != "" {
		transcript.WriteEventText(e.Stdout, doc.Page)
		return common.ExitOK
	}
	transcript.WriteText(e.Stdout, doc.Page)
	if doc.Page.Older != "" {
		fmt.Fprintf(e.Stderr, "%s: more before this page: --before %s\n", e.Tool, doc.Page.Older)
	}
	return common.ExitOK
}
