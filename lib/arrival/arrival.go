package arrival

import (
	"fmt"
	"strconv"

	"github.com/tmaproject/tma/lib/tmux"
)

// The kinds of move a clear is told of ($TMA_HOOK_KIND); any other (an
// older hook string, pane-focus-in) clears the arrival only.
const (
	SelectPane    = "after-select-pane"
	WindowChanged = "session-window-changed"
)

// NextMark is the pane option `tma jump --next` sets on the pane it moves
// to, in the same tmux call and before the move: the epoch milliseconds of
// the jump. A clear that arrives at a pane whose mark is fresh clears
// nothing (neither the arrival nor the pane left): the hooks the move fires
// (session-window-changed on a window change, pane-focus-in with [focus]
// events) are that jump's, and --next is plain positional cycling that
// leaves attention untouched.
const NextMark = "@tma_next_at"

// FreshMS is how long a NextMark speaks for its jump: the hooks the move
// fires run within it (a run-shell, the dispatcher, tma-hook, one list
// call), a later arrival at the same pane is another move. A clear that
// leaves the marked pane retires the mark at once, so only a return to it
// within FreshMS of a move that fired no hook could be mistaken for it.
const FreshMS = 5000

// skewMS is how far ahead of the clear's clock a mark may be dated and
// still be fresh (the jump and the hook read the same clock; this only
// absorbs their order).
const skewMS = 1000

// MarkLine is the source-file line a --next jump sends before its move.
func MarkLine(dest string, nowMS int64) (string, error) {
	if !tmux.ValidPaneID(dest) {
		return "", fmt.Errorf("invalid pane id %q", dest)
	}
	return "set -p -t " + dest + " " + NextMark + " " + strconv.FormatInt(nowMS, 10), nil
}

// Fresh reports whether a NextMark value speaks for a jump at nowMS.
func Fresh(mark string, nowMS int64) bool {
	at, err := strconv.ParseInt(mark, 10, 64)
	return err == nil && at > 0 && at <= nowMS+skewMS && nowMS-at <= FreshMS
}

// Pane is one pane of the session a clear happens in, as tmux lists it.
type Pane struct {
	ID, Window   string
	Active, Last bool // pane_active, pane_last
	WindowActive bool // window_active: its window is the session's current one
	WindowLast   bool // window_last_flag
	Attention    bool // @agent_attention is set
	Next         string
}

// Plan is what a clear does in a session: the panes whose attention mark
// it retires, and the panes whose NextMark it removes (stale, or on a pane
// this move leaves).
type Plan struct {
	Clear  []string
	Unmark []Pane
}

// Decide plans the clear for a move of kind arriving at pane, over the
// panes of its session.
//
// after-select-pane clears the arrival and the window's last pane (the one
// left), unless the select happened in a window nobody looks at (not its
// session's current one): that arrives nowhere, so only the pane left
// clears. session-window-changed clears the arrival and the active pane of
// the session's previous window. Any other kind clears the arrival only.
// An arrival carrying a fresh NextMark clears nothing at all; a pane not
// among panes (gone since) clears nothing either.
func Decide(panes []Pane, pane, kind string, nowMS int64) Plan {
	var p Plan
	var here *Pane
	for i := range panes {
		if panes[i].ID == pane {
			here = &panes[i]
		}
	}
	if here == nil {
		return p // a pane gone since the hook fired: nothing arrived
	}
	spared := Fresh(here.Next, nowMS)
	for _, r := range panes {
		if r.Next != "" && (r.ID != pane || !spared) {
			p.Unmark = append(p.Unmark, r)
		}
	}
	if spared {
		return p
	}
	targets := map[string]bool{pane: true}
	if kind == SelectPane && !here.WindowActive {
		targets[pane] = false
	}
	for _, r := range panes {
		switch kind {
		case SelectPane:
			if r.Window == here.Window && r.Last && r.ID != pane {
				targets[r.ID] = true
			}
		case WindowChanged:
			if r.WindowLast && r.Active && r.Window != here.Window {
				targets[r.ID] = true
			}
		}
	}
	for _, r := range panes {
		if targets[r.ID] && r.Attention {
			p.Clear = append(p.Clear, r.ID)
		}
	}
	return p
}
