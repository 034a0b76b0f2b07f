package common

import (
	"context"
	"os"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/tmux/listcall"
)

// EarlyList starts the list call a one-shot scan will make, from the words
// and the config, before kong has run: the scan's start-up then overlaps
// tmux's answer instead of preceding it. It resolves the server as
// Globals.Tmux will and the binary as the config says; a scan that ends up
// with another binary or server after all abandons the call. It starts
// nothing (and returns nil) for a form it cannot read for sure: help,
// version, --follow, a word it does not know to skip.
func EarlyList(e *Env, args []string) *tmux.PendingList {
	c := earlyClient(e, args, false)
	if c == nil {
		listcall.Drop() // prelist guessed a call this run will not make
		return nil
	}
	return c.StartList(context.Background())
}

// earlyClient is the client the words and the config name: the config is
// read here too (a load is a small part of a process's start; kong is the
// large one), so a [tmux] bin is honoured and costs no abandoned call.
func earlyClient(e *Env, args []string, positional bool) *tmux.Client {
	t, cfgPath, ok := earlyTarget(args, e.Getenv, positional)
	if !ok {
		return nil
	}
	cfg, _, err := config.LoadResolved(cfgPath, config.Env(e.Lookup))
	if err != nil {
		return nil // the run proper says what is wrong with it
	}
	return tmux.New(cfg.TmuxBin(config.Env(e.Lookup)), t)
}

// EarlyBatch starts the `source-file -` process a hook's write will use,
// guessed as EarlyList guesses (words before the positionals are allowed
// here), with timeout bounding it. It starts nothing where a daemon's
// socket exists: a hook hands its event to a running daemon and spawns no
// tmux at all.
func EarlyBatch(e *Env, args []string, timeout time.Duration, daemonSocket func(tmux.Target) string) *tmux.PendingBatch {
	c := earlyClient(e, args, true)
	if c == nil {
		listcall.DropBatch() // prebatch guessed a write this run will not make
		return nil
	}
	if s := daemonSocket(c.Target); s != "" {
		if _, err := os.Stat(s); err == nil {
			listcall.DropBatch()
			return nil
		}
	}
	c.Timeout = timeout
	return c.StartBatch(context.Background())
}

// earlyTarget is the server the words name, resolved as Globals.Tmux
// resolves it, and whether it could read the words for sure
// (listcall.Words); positional words (a hook's agent, event, payload) are
// allowed when positional is set.
func earlyTarget(args []string, getenv func(string) string, positional bool) (t tmux.Target, cfgPath string, ok bool) {
	name, path, cfgPath, ok := listcall.Words(args, positional)
	if !ok {
		return tmux.Target{}, "", false
	}
	return tmux.ResolveTarget(name, path, getenv), cfgPath, true
}
