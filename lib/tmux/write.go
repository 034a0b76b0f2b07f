package tmux

import (
	"fmt"
	"strconv"
	"strings"
)

// Set is one option assignment inside a guarded write.
type Set struct {
	Name  string
	Value string
	// Format marks Value as a tmux format tma built itself (set -pF); it is
	// expanded in the pane's context at write time. Plain values are literal.
	Format bool
	Unset  bool
}

// Write is one pane's tuple, committed atomically under one guard: tmux
// expands the guard once in the pane's context and runs the sets only when
// it holds, so a producer holding older evidence writes nothing at all.
type Write struct {
	Pane  string
	Guard string // a format; empty means unconditional
	Sets  []Set  // in order; put @agent_stamped_at last
}

// Line renders the write as one source-file line.
func (w Write) Line() (string, error) {
	if !ValidPaneID(w.Pane) {
		return "", fmt.Errorf("invalid pane id %q", w.Pane)
	}
	cmds := make([]string, 0, len(w.Sets))
	for _, s := range w.Sets {
		if !validOption(s.Name) {
			return "", fmt.Errorf("invalid option name %q", s.Name)
		}
		if err := CheckValue(s.Value); err != nil {
			return "", fmt.Errorf("%s: %v", s.Name, err)
		}
		switch {
		case s.Unset:
			cmds = append(cmds, "set -pu -t "+w.Pane+" "+s.Name)
		case s.Format:
			cmds = append(cmds, "set -pF -t "+w.Pane+" "+s.Name+" "+Quote(s.Value))
		default:
			cmds = append(cmds, "set -p -t "+w.Pane+" "+s.Name+" "+Quote(s.Value))
		}
	}
	body := strings.Join(cmds, " ; ")
	if w.Guard == "" {
		return body, nil
	}
	if err := CheckValue(w.Guard); err != nil {
		return "", err
	}
	return "if-shell -F -t " + w.Pane + " " + Quote(w.Guard) + " " + Quote(body), nil
}

// validOption is a user option name tmux's parser reads as one plain
// word: @ and [A-Za-z0-9_-]. Names go unquoted onto the line, so a '$',
// '~', '{' or '\' in one would be expanded or parsed, not written.
func validOption(name string) bool {
	if len(name) < 2 || name[0] != '@' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ScopedSet writes (or unsets) a window or session option, used for rollups.
// The target is quoted as it is: a session name's blanks are its own.
func ScopedSet(scope, target, name, value string) (string, error) {
	if err := CheckValue(value); err != nil {
		return "", err
	}
	if err := CheckValue(target); err != nil {
		return "", fmt.Errorf("target: %v", err)
	}
	if !validOption(name) {
		return "", fmt.Errorf("invalid option name %q", name)
	}
	cmd := "set -w"
	if scope == "session" {
		cmd = "set"
	}
	if value == "" {
		return cmd + " -u -t " + Quote(target) + " " + name, nil
	}
	return cmd + " -t " + Quote(target) + " " + name + " " + Quote(value), nil
}

// ServerSet writes a server-wide user option (set -s is for server options;
// user options live in the global session table: set -g).
func ServerSet(name, value string) (string, error) {
	if err := CheckValue(value); err != nil {
		return "", err
	}
	return "set -g " + name + " " + Quote(value), nil
}

// FutureSkewMS is how far past a producer's clock a stored tuple may be
// dated and still be a rival's write in flight (a cycle's calls take at most
// a few seconds). Anything dated later is a backward wall-clock step (a
// suspend, an NTP correction): the tuple is settled and may be overwritten,
// or a stepped clock would freeze the pane until it caught up.
const FutureSkewMS = 10_000

// FromTheFuture is the guard term that holds when the pane's stored tuple is
// dated more than FutureSkewMS after nowMS.
func FromTheFuture(nowMS int64) string {
	t := strconv.FormatInt(nowMS+FutureSkewMS, 10)
	return "#{||:#{e|>:#{@agent_stamped_at}," + t + "},#{e|>:#{@agent_evidence_at}," + t + "}}"
}
