package setupcmd

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/tmaproject/tma/lib/cli/act"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/daemon"
	"github.com/tmaproject/tma/lib/cli/notify"
	"github.com/tmaproject/tma/lib/cli/pick"
	"github.com/tmaproject/tma/lib/cli/scan"
	servegrammar "github.com/tmaproject/tma/lib/cli/serve/grammar"
	transcriptgrammar "github.com/tmaproject/tma/lib/cli/transcript/grammar"
	"github.com/tmaproject/tma/lib/cli/view"
	"github.com/tmaproject/tma/lib/cli/wait"
	"github.com/tmaproject/tma/lib/completion"
	"github.com/tmaproject/tma/lib/selector"
)

type completionsCmd struct {
	Shell string `arg:"" optional:"" enum:"bash,zsh,fish," default:"" help:"bash, zsh or fish (none: where each shell reads the script from)."`
}

// completions writes one shell's script, or with no shell where each
// shell reads its file from.
func completions(e *common.Env, c *completionsCmd) int {
	if c.Shell == "" {
		if completion.WriteLocations(e.Stdout) != nil {
			return common.ExitFail
		}
		return common.ExitOK
	}
	root, err := CompletionTree()
	if err == nil {
		err = completion.Write(e.Stdout, c.Shell, root)
	}
	if err != nil {
		e.Errorf("completions: %v", err)
		return common.ExitFail
	}
	return common.ExitOK
}

// The public commands as shell/tma routes them: the tma command, the tool
// that runs it, and the command's path in that tool's grammar. The
// internal verbs (event, clear-attention: tma-hook; pick, preview, feed:
// the picker's own) are not here, so no script offers them.
var routes = []struct {
	name, path string
	grammar    func() any
}{
	{"ls", "ls", viewcmd.Grammar},
	{"status", "status", viewcmd.Grammar},
	{"debug explain", "debug explain", viewcmd.Grammar},
	{"debug notify-test", "debug notify-test", notifycmd.Grammar},
	{"debug transitions", "debug transitions", daemoncmd.Grammar},
	{"doctor", "doctor", grammar},
	{"init", "init", grammar},
	{"install-hooks", "install-hooks", grammar},
	{"install-keys", "install-keys", grammar},
	{"uninstall", "uninstall", grammar},
	{"daemon", "daemon", daemoncmd.Grammar},
	{"reload", "reload", grammar},
	{"device", "device", grammar},
	{"serve", "serve", servegrammar.Grammar},
	{"jump", "jump", pickcmd.Grammar},
	{"attach", "attach", pickcmd.Grammar},
	{"watch", "watch", pickcmd.Grammar},
	{"act", "act", actcmd.Grammar},
	{"receipts", "receipts", actcmd.Grammar},
	{"mute", "mute", actcmd.Grammar},
	{"transcript", "transcript", transcriptgrammar.Grammar},
	{"wait", "wait", waitcmd.Grammar},
	{"subscribe", "subscribe", waitcmd.Grammar},
	{"completions", "completions", grammar},
	{"version", "version", viewcmd.Grammar},
}

func grammar() any { return &cli{} }

// CompletionTree is tma's command tree as the dispatcher presents it,
// built from each tool's own grammar: the globals every tool takes, each
// public command with its non-hidden flags, --interval on wait and
// subscribe (the dispatcher hands it to tma-scan), and the state
// lists of --state and --until.
func CompletionTree() (*completion.Command, error) {
	opts := []kong.Option{kong.Vars{"version": common.Version}}
	root, err := completion.FromKong(grammar(), "", opts...)
	if err != nil {
		return nil, err
	}
	root.Commands = nil
	sc, err := completion.FromKong(scancmd.Grammar(), "", opts...)
	if err != nil {
		return nil, err
	}
	interval := sc.Flag("interval")
	if interval == nil {
		return nil, fmt.Errorf("tma-scan has no --interval")
	}
	interval.Help = "the cycle cadence (default 1s)."
	for _, r := range routes {
		c, err := completion.FromKong(r.grammar(), r.path, opts...)
		if err != nil {
			return nil, err
		}
		c.Name = r.name
		parent := root
		if sub, ok := strings.CutPrefix(r.name, "debug "); ok {
			if parent = root.Find("debug"); parent == nil {
				parent = &completion.Command{Name: "debug", Help: "inspection tools: explain, notify-test, transitions."}
				root.Commands = append(root.Commands, parent)
			}
			c.Name = sub
		}
		if (c.Name == "wait" || c.Name == "subscribe") && c.Flag("interval") == nil {
			c.Flags = append(c.Flags, interval)
		}
		parent.Commands = append(parent.Commands, c)
	}
	root.Commands = append(root.Commands, &completion.Command{Name: "help", Help: "print tma's commands."})
	root.Walk(func(_ string, c *completion.Command) {
		for _, f := range c.Flags {
			if f.Long == "state" || f.Long == "until" {
				f.Values, f.List = selector.Tokens, true
			}
		}
	})
	return root, nil
}
