package hookcmd

import (
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
)

// The hidden verbs the dispatcher routes to tma-hook, each with a grammar of
// its own so `tma event --help` and `tma clear-attention --help` are kong's
// help for what the user typed. The hook's own form (tma-hook <agent>
// <event> [payload]) keeps its one flat grammar: a hook pays for no
// subcommand model it never uses.

type eventCmd struct {
	Agent   string `name:"agent" required:"" placeholder:"AGENT" help:"the agent (a manifest name, e.g. claude)."`
	Kind    string `name:"kind" required:"" placeholder:"KIND" help:"the agent's event name (e.g. Stop; context for a statusline payload)."`
	Pane    string `name:"pane" placeholder:"ID" help:"the pane the event is about (default: $TMUX_PANE)."`
	Payload string `name:"payload" placeholder:"JSON" help:"the event's payload; - (or none) reads it from stdin."`
}

type clearCmd struct {
	Pane string `arg:"" help:"the pane arrived at (%N)."`
}

type verbs struct {
	common.Globals
	Event          eventCmd `cmd:"" help:"record one agent event in its pane, as the agent's hook does (what the statusline shim runs)."`
	ClearAttention clearCmd `cmd:"" name:"clear-attention" help:"clear the attention mark of the pane arrived at, and of the pane just left per $TMA_HOOK_KIND (what the attention-clear tmux hooks run)."`
}

// verb is the hidden verb the words name ("" for the hook's own form): the
// first word that is not a flag or a global flag's value, before any --.
func verb(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case a == "-L" || a == "-S" || a == "--socket-name" || a == "--socket-path" || a == "--config" ||
			a == "--manifest-dir" || a == "--client" || a == "--pane" || a == "--clear-attention":
			i++
		case strings.HasPrefix(a, "-"):
		case a == "event" || a == "clear-attention":
			return a
		default:
			return ""
		}
	}
	return ""
}
