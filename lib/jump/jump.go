package jump

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// TrailCap bounds the return trail; pushing past it drops the oldest entry.
const TrailCap = 8

// TrailOption is the server option holding a client's return trail:
// @tma_trail_<client name with every byte outside [A-Za-z0-9] as _>, a
// space-separated list of pane ids, oldest first.
func TrailOption(client string) string {
	var b strings.Builder
	b.WriteString("@tma_trail_")
	for i := 0; i < len(client); i++ {
		c := client[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ParseTrail reads a stored trail, keeping only pane ids.
func ParseTrail(v string) []string {
	var out []string
	for _, f := range strings.Fields(v) {
		if tmux.ValidPaneID(f) {
			out = append(out, f)
		}
	}
	return out
}

// Push adds pane on top of the trail (not twice in a row), capped.
func Push(trail []string, pane string) []string {
	if pane == "" {
		return trail
	}
	if n := len(trail); n > 0 && trail[n-1] == pane {
		return trail
	}
	trail = append(append([]string(nil), trail...), pane)
	if len(trail) > TrailCap {
		trail = trail[len(trail)-TrailCap:]
	}
	return trail
}

// Unexpanded reports a --client value that is the literal, unexpanded
// #{client_name} of a binding that does not format-expand (display-popup):
// it means no client.
func Unexpanded(v string) bool { return strings.Contains(v, "#{") }

// ErrNoClient is returned when no client can be moved.
var ErrNoClient = errors.New("no tmux client to move")

// Here is where the environment puts this process on the server a cycle
// observed: inside one of its panes ($TMUX_PANE), or in a popup or a
// command run by it ($TMUX names its socket and session). A $TMUX naming
// another server says nothing about this one: its pane and session ids are
// that server's (a %1 there is not the %1 here), so Inside is false and
// both are empty.
type Here struct {
	Inside    bool   // $TMUX names the server observed
	Pane      string // $TMUX_PANE, when Inside
	SessionID string // "$N" from $TMUX, when Inside
}

// Where reads Here from the environment for the server f observed (a
// cycle that did not say which server it observed takes $TMUX's word).
func Where(f *fleet.Fleet, getenv func(string) string) Here {
	t := getenv("TMUX")
	if t == "" {
		return Here{}
	}
	parts := strings.Split(t, ",")
	if server := f.Cycle.Server; server != "" && parts[0] != server {
		return Here{}
	}
	h := Here{Inside: true, Pane: getenv("TMUX_PANE")}
	if len(parts) == 3 {
		h.SessionID = "$" + parts[2]
	}
	return h
}

// ResolveClient picks the acting client:
//  1. --client, unless empty or an unexpanded #{client_name};
//  2. inside tmux, the client showing $TMUX_PANE (the latest input wins);
//  3. in a popup ($TMUX set, $TMUX_PANE empty), the client on $TMUX's session
//     with the latest input: the one that just pressed the key;
//  4. otherwise the server's client with the latest input.
//
// Control-mode clients are never picked implicitly.
func ResolveClient(f *fleet.Fleet, flag string, getenv func(string) string) (record.Client, error) {
	cs := f.Cycle.Clients
	if flag != "" && !Unexpanded(flag) {
		for _, c := range cs {
			if c.Name == flag {
				return c, nil
			}
		}
		return record.Client{}, fmt.Errorf("no client %q on this server", flag)
	}
	best := func(keep func(record.Client) bool) (record.Client, bool) {
		var out record.Client
		found := false
		for _, c := range cs {
			if c.Control || !keep(c) {
				continue
			}
			if !found || c.Activity > out.Activity {
				out, found = c, true
			}
		}
		return out, found
	}
	h := Where(f, getenv)
	if p := h.Pane; p != "" {
		if c, ok := best(func(c record.Client) bool { return c.Pane == p }); ok {
			return c, nil
		}
	}
	sessionID := h.SessionID
	if sessionID != "" {
		name := ""
		for _, p := range f.Panes {
			if p.SessionID == sessionID {
				name = p.Session
				break
			}
		}
		if c, ok := best(func(c record.Client) bool { return c.Session == name }); ok && name != "" {
			return c, nil
		}
	}
	if c, ok := best(func(record.Client) bool { return true }); ok {
		return c, nil
	}
	return record.Client{}, ErrNoClient
}

// Direction is what a jump is asked to do.
type Direction int

// The directions.
const (
	Next Direction = iota
	Attention
	Blocked
	Back
	Home
	Pane
	Menu
)

// Target picks the destination of a forward triage jump among rows (already
// scoped by the selector, in pick order), away from the pane the client is
// on. It returns nil and the note to print when nothing qualifies.
//
// --attention takes blocked then done rows, longest waiting first; --blocked
// blocked rows only; --next cycles every row positionally (session name,
// window index, pane index), wrapping, starting after the current pane.
func Target(d Direction, rows []*record.Row, current string) (*record.Row, string) {
	switch d {
	case Attention, Blocked:
		for _, r := range rows {
			c := r.Row.Class()
			if r.Row.Pane == current {
				continue
			}
			if c == "blocked" || d == Attention && c == "done" {
				return r, ""
			}
		}
		if d == Attention {
			return nil, "no agents waiting for you in scope"
		}
		return nil, "no blocked agents in scope"
	case Next:
		pos := append([]*record.Row(nil), rows...)
		sort.SliceStable(pos, func(i, j int) bool { return before(pos[i], pos[j]) })
		for i, r := range pos {
			if r.Row.Pane == current {
				if len(pos) == 1 {
					return nil, "no other agents in scope"
				}
				return pos[(i+1)%len(pos)], ""
			}
		}
		// Not on an agent: the first one after the current position.
		for _, r := range pos {
			return r, ""
		}
		return nil, "no agents in scope"
	}
	return nil, ""
}

func before(a, b *record.Row) bool {
	if a.TmuxSession != b.TmuxSession {
		return a.TmuxSession < b.TmuxSession
	}
	if a.Window != b.Window {
		return a.Window < b.Window
	}
	return a.Index < b.Index
}

// Replay resolves --back (pop one live entry) and --home (the bottom live
// entry, emptying the trail). Entries whose pane has gone, and the pane the
// client is already on, are skipped. It returns the destination ("" when the
// trail holds nothing to go to) and the trail to store.
func Replay(d Direction, trail []string, live func(string) bool, current string) (string, []string) {
	if d == Home {
		for _, p := range trail {
			if live(p) && p != current {
				return p, nil
			}
		}
		return "", nil
	}
	for i := len(trail) - 1; i >= 0; i-- {
		if live(trail[i]) && trail[i] != current {
			return trail[i], append([]string(nil), trail[:i]...)
		}
	}
	return "", nil
}

// Move plans the jump: switch the client to the pane (switch-client selects
// the pane's window and the pane itself), optionally clear the pane's
// attention, and store the trail, as source-file lines for one tmux call.
func Move(client, dest string, clearAttention bool, trailOpt string, trail []string) ([]string, error) {
	if !tmux.ValidPaneID(dest) {
		return nil, fmt.Errorf("invalid pane id %q", dest)
	}
	if err := tmux.CheckValue(client); err != nil {
		return nil, err
	}
	lines := []string{"switch-client -c " + tmux.Quote(client) + " -t " + dest}
	if clearAttention {
		l, err := tmux.Write{Pane: dest, Sets: []tmux.Set{{Name: "@agent_attention", Unset: true}}}.Line()
		if err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	if trailOpt != "" {
		l, err := TrailLine(trailOpt, trail)
		if err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// TrailLine stores (or, empty, unsets) a trail.
func TrailLine(opt string, trail []string) (string, error) {
	if len(trail) == 0 {
		return "set -gu " + opt, nil
	}
	return tmux.ServerSet(opt, strings.Join(trail, " "))
}

// Age renders time in state: 42s, 5m, 1h05m, 3d.
func Age(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	s := ms / 1000
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		return strconv.FormatInt(s/60, 10) + "m"
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	}
	return strconv.FormatInt(s/86400, 10) + "d"
}

// RowAge is a row's time in state at now ("" when the row has no since).
func RowAge(r *record.Row, now int64) string {
	if r.Row.Since == nil || *r.Row.Since <= 0 {
		return ""
	}
	return Age(now - *r.Row.Since)
}
