package notify

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/telemetry"
	"github.com/tmaproject/tma/lib/tmux"
)

// The markers. The state triggers share one: an episode (one state run,
// keyed by @agent_since) notifies once, whichever trigger it is.
const (
	MarkerState   = "@agent_notified_at"
	MarkerContext = telemetry.OptContextNotifiedAt
	MarkerStall   = "@agent_stall_notified_at"
)

// ContextRearmBand is how far below the threshold the gauge must fall
// before context_high may fire again.
const ContextRearmBand = 10

// Arm asks tmux to mark one pane's episode as notified, if nobody has yet.
// Its line runs after the stamp lines in the same source-file, so the
// condition reads the tuple as committed, by this producer or a rival:
// tmux expands it once, atomically, and only the first producer to find
// the episode unmarked writes the marker and reads the pane back. That
// read is how the producer learns it won, in the same spawn.
type Arm struct {
	Trigger string
	Pane    string
	// Agent, where set, is the agent the pane must still be named for: a
	// context_high crossing is of the gauge that agent reported.
	Agent     string
	NowMS     int64
	Threshold int64 // context_high: percent; stall: seconds
}

func cond2(op, a, b string) string { return "#{" + op + ":" + a + "," + b + "}" }

func and(cs ...string) string {
	out := cs[0]
	for _, c := range cs[1:] {
		out = cond2("&&", out, c) // tmux 3.3 takes two operands
	}
	return out
}

func (a Arm) marker() string {
	switch a.Trigger {
	case ContextHigh:
		return MarkerContext
	case Stall:
		return MarkerStall
	}
	return MarkerState
}

func (a Arm) condition() (string, error) {
	n := strconv.FormatInt
	unmarked := cond2("e|<", "#{"+a.marker()+"}", "#{@agent_since}")
	switch a.Trigger {
	case Blocked:
		return and(cond2("==", "#{@agent_state}", "blocked"), unmarked), nil
	case Done:
		return and(cond2("==", "#{@agent_state}", "idle"), cond2("==", "#{@agent_attention}", "1"), unmarked), nil
	case Stall:
		if a.Threshold <= 0 {
			return "", fmt.Errorf("stall needs a threshold")
		}
		return and(cond2("==", "#{@agent_state}", "working"), unmarked,
			cond2("e|<", "0", "#{@agent_since}"), cond2("e|<", "#{@agent_since}", n(a.NowMS-a.Threshold*1000, 10))), nil
	case ContextHigh:
		if a.Threshold <= 0 {
			return "", fmt.Errorf("context_high needs a threshold")
		}
		c := and(cond2("!=", "#{@agent_context_pct}", ""), cond2("e|>=", "#{@agent_context_pct}", n(a.Threshold, 10)),
			cond2("==", "#{"+MarkerContext+"}", ""))
		if a.Agent != "" {
			c = and(c, cond2("==", "#{@agent_name}", a.Agent))
		}
		return c, nil
	}
	return "", fmt.Errorf("unknown trigger %q", a.Trigger)
}

// sep separates the read-back fields (tmux 3.4 may print it as \037).
const sep = "\x1f"

// readback is what the winner reads of the pane, title last (it is the one
// field its program writes freely).
var readback = []string{"#{pane_id}", "#{@agent_name}", "#{@agent_state}", "#{@agent_detail}",
	"#{@agent_session}", "#{session_name}:#{window_index}.#{pane_index}", "#{pane_current_path}",
	"#{pane_tty}", "#{@agent_since}", "#{@agent_turn_at}", "#{@agent_mute_until}",
	"#{@agent_context_pct}", "#{S:#{session_attached_list}|}", "#{pane_title}"}

// Line renders the arm as one source-file line; nonce tells this
// producer's read-back from anyone else's.
func (a Arm) Line(nonce string) (string, error) {
	if !tmux.ValidPaneID(a.Pane) {
		return "", fmt.Errorf("invalid pane id %q", a.Pane)
	}
	c, err := a.condition()
	if err != nil {
		return "", err
	}
	now := strconv.FormatInt(a.NowMS, 10)
	value := now
	if a.marker() != MarkerContext {
		// Never below the episode's since, even when a rival's event time is
		// ahead of this clock: the marker must close the episode it fired.
		value = "#{?" + cond2("e|<", now, "#{@agent_since}") + ",#{@agent_since}," + now + "}"
	}
	tag := nonce + ":" + a.Trigger + sep
	body := "set -pF -t " + a.Pane + " " + a.marker() + " " + tmux.Quote(value) +
		" ; display -p -t " + a.Pane + " " + tmux.Quote(tag+strings.Join(readback, sep))
	return "if-shell -F -t " + a.Pane + " " + tmux.Quote(c) + " " + tmux.Quote(body), nil
}

// RearmContext unsets a pane's context_high marker once its gauge has
// fallen below threshold - ContextRearmBand.
func RearmContext(pane string, threshold int64) (string, error) {
	if !tmux.ValidPaneID(pane) {
		return "", fmt.Errorf("invalid pane id %q", pane)
	}
	c := and(cond2("!=", "#{"+MarkerContext+"}", ""),
		cond2("e|<", "#{@agent_context_pct}", strconv.FormatInt(threshold-ContextRearmBand, 10)))
	return "if-shell -F -t " + pane + " " + tmux.Quote(c) + " " + tmux.Quote("set -pu -t "+pane+" "+MarkerContext), nil
}

// Nonce is a fresh read-back tag.
func Nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "tma-notify-" + hex.EncodeToString(b[:])
}

// Won parses a tmux call's output for this producer's read-backs: the
// episodes it marked, and so must fire.
func Won(out, nonce string) []*Fired {
	var won []*Fired
	out = strings.ReplaceAll(out, `\037`, sep)
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, nonce+":") {
			continue
		}
		// The title is last: a separator inside it stays in it, and a
		// newline ends it (the rest is not ours to read).
		f := strings.Split(strings.TrimPrefix(l, nonce+":"), sep)
		if len(f) < len(readback)+1 {
			continue
		}
		if len(f) > len(readback)+1 {
			f = append(f[:len(readback)], strings.Join(f[len(readback):], sep))
		}
		fd := &Fired{Trigger: f[0], Pane: f[1], Agent: f[2], State: f[3], Detail: f[4], Session: f[5],
			Locator: f[6], CWD: f[7], TTY: f[8], SinceMS: atoi(f[9]), TurnAtMS: atoi(f[10]),
			MuteUntil: atoi(f[11]), Title: f[14]}
		if v, err := strconv.ParseInt(f[12], 10, 64); err == nil {
			fd.Context = &v
		}
		for _, c := range strings.FieldsFunc(f[13], func(r rune) bool { return r == '|' || r == ',' }) {
			fd.Clients = append(fd.Clients, c)
		}
		won = append(won, fd)
	}
	return won
}

func atoi(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return v
}
