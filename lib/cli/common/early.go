package common

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/tmux"
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
		return nil
	}
	if s := daemonSocket(c.Target); s != "" {
		if _, err := os.Stat(s); err == nil {
			return nil
		}
	}
	c.Timeout = timeout
	return c.StartBatch(context.Background())
}

// earlyTarget is the server the words name, resolved as Globals.Tmux
// resolves it, and whether it could read the words for sure; positional
// words (a hook's agent, event, payload) are allowed when positional is set.
func earlyTarget(args []string, getenv func(string) string, positional bool) (t tmux.Target, cfgPath string, ok bool) {
	var name, path string
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		ok = true
		switch {
		case a == "--":
			return tmux.Target{}, "", false
		case a == "-L" || a == "--socket-name":
			name, ok = next()
		case a == "-S" || a == "--socket-path":
			path, ok = next()
		case strings.HasPrefix(a, "--socket-name="):
			name = strings.TrimPrefix(a, "--socket-name=")
		case strings.HasPrefix(a, "--socket-path="):
			path = strings.TrimPrefix(a, "--socket-path=")
		case strings.HasPrefix(a, "-L") && len(a) > 2:
			name = a[2:]
		case strings.HasPrefix(a, "-S") && len(a) > 2:
			path = a[2:]
		case a == "--config":
			cfgPath, ok = next()
		case strings.HasPrefix(a, "--config="):
			cfgPath = strings.TrimPrefix(a, "--config=")
		case a == "--manifest-dir" || a == "--client" || a == "--pane" || a == "--interval":
			_, ok = next()
		case strings.HasPrefix(a, "--clear-attention"):
			return tmux.Target{}, "", false // lists first and mostly writes nothing: no batch to start
		case strings.HasPrefix(a, "--") && !strings.HasPrefix(a, "--follow") && !strings.HasPrefix(a, "--help") && !strings.HasPrefix(a, "--version"):
			// a flag of its own word (--no-capture, --pane=%3 …)
		case positional && !strings.HasPrefix(a, "-"):
		default:
			return tmux.Target{}, "", false
		}
		if !ok {
			return tmux.Target{}, "", false
		}
	}
	return tmux.ResolveTarget(name, path, getenv), cfgPath, true
}
