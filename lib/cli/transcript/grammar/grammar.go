package grammar

import "github.com/tmaproject/tma/lib/cli/common"

// Transcript is `tma transcript`'s flags.
type Transcript struct {
	Pane    string `name:"pane" placeholder:"ID" help:"the pane whose agent's transcript to read (default: $TMUX_PANE)."`
	Last    int    `name:"last" placeholder:"N" default:"20" help:"how many events, counted back from the newest (1–1000)."`
	Before  string `name:"before" placeholder:"CURSOR" xor:"at" help:"the page behind this cursor (a page's older)."`
	Event   string `name:"event" placeholder:"CURSOR" xor:"at" help:"one event, with its whole body."`
	JSON    bool   `name:"json" help:"print the schema-1 document (a refusal is one too)."`
	Headers bool   `name:"headers" help:"leave every body out (null in --json)."`
}

// CLI is tma-transcript's whole grammar.
type CLI struct {
	common.Globals
	Transcript Transcript `cmd:"" default:"withargs" help:"read what the agent in a pane has been writing, out of its own transcript store, newest first."`
}

// Grammar is tma-transcript's command line as kong parses it, for the
// completion scripts tma completions writes from it (lib/completion).
func Grammar() any { return &CLI{} }
