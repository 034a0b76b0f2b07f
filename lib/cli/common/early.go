package common

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/tmux"
)

// EarlyList starts the list call a one-shot scan will make, from the words
// alone, before kong and the config have run: the scan's start-up then
// overlaps tmux's answer instead of preceding it. It guesses the server as
// Globals.Tmux will resolve it and the binary from TMA_TMUX_BIN (a config
// [tmux] bin is not read yet: a scan that ends up with another binary or
// server abandons the call). It starts nothing for a form it cannot read
// for sure (help, version, --follow, a word it does not know to skip) and
// returns nil then.
func EarlyList(e *Env, args []string) *tmux.PendingList {
	t, ok := earlyTarget(args, e.Getenv, false)
	if !ok {
		return nil
	}
	return tmux.New(tmux.ResolveBin("", e.Getenv), t).StartList(context.Background())
}

// EarlyBatch starts the `source-file -` process a hook's write will use,
// guessed as EarlyList guesses (words before the positionals are allowed
// here), with timeout bounding it. It starts nothing where a daemon's
// socket exists: a hook hands its event to a running daemon and spawns no
// tmux at all.
func EarlyBatch(e *Env, args []string, timeout time.Duration, daemonSocket func(tmux.Target) string) *tmux.PendingBatch {
	t, ok := earlyTarget(args, e.Getenv, true)
	if !ok {
		return nil
	}
	if s := daemonSocket(t); s != "" {
		if _, err := os.Stat(s); err == nil {
			return nil
		}
	}
	c := tmux.New(tmux.ResolveBin("", e.Getenv), t)
	c.Timeout = timeout
	return c.StartBatch(context.Background())
}

// earlyTarget is the server the words name, resolved as Globals.Tmux
// resolves it, and whether it could read the words for sure; positional
// words (a hook's agent, event, payload) are allowed when positional is set.
func earlyTarget(args []string, getenv func(string) string, positional bool) (tmux.Target, bool) {
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
		var ok = true
		switch {
		case a == "--":
			return tmux.Target{}, false
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
		case a == "--config" || a == "--manifest-dir" || a == "--client" || a == "--pane" || a == "--interval":
			_, ok = next()
		case strings.HasPrefix(a, "--clear-attention"):
			return tmux.Target{}, false // lists first and mostly writes nothing: no batch to start
		case strings.HasPrefix(a, "--") && !strings.HasPrefix(a, "--follow") && !strings.HasPrefix(a, "--help") && !strings.HasPrefix(a, "--version"):
			// a flag of its own word (--no-capture, --pane=%3 …)
		case positional && !strings.HasPrefix(a, "-"):
		default:
			return tmux.Target{}, false
		}
		if !ok {
			return tmux.Target{}, false
		}
	}
	return tmux.ResolveTarget(name, path, getenv), true
}
