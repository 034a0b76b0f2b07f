package tmux

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// OptionNames are the pane options the cycle reads in its one list-panes:
// the whole @agent_* set and tma's internal anchors.
var OptionNames = []string{
	"@agent_name", "@agent_pid", "@agent_state", "@agent_detail", "@agent_source",
	"@agent_evidence_at", "@agent_since", "@agent_stamped_at", "@agent_hash",
	"@agent_attention", "@agent_notified_at", "@agent_turn_at", "@agent_session",
	"@agent_subagents", "@agent_context_pct", "@agent_context_at", "@agent_tokens",
	"@agent_tokens_at", "@agent_context_notified_at", "@agent_stall_notified_at",
	"@agent_quota_pct", "@agent_quota_window", "@agent_quota_resets_at", "@agent_quota_at",
	"@agent_cost_usd", "@agent_model", "@agent_permission_request", "@agent_question_request",
	"@agent_pending_tool", "@agent_pending_call", "@agent_pending_summary",
	"@agent_api_endpoint", "@agent_transcript", "@agent_act_repeat", "@agent_action",
	"@agent_mute_until", "@agent_ignore",
	"@tma_watch_pid", "@tma_title_match_pid", "@tma_reg_dead_since", "@tma_idle_since",
	"@tma_unblock_seen", "@tma_unexplained", "@tma_unexplained_at", "@tma_demoted",
}

// StandaloneOptions may stand on a pane without @agent_name: the user's
// @agent_ignore, what outlives an agent (a pending action's lock, a mute, a
// watcher's pid), a state another tool wrote, and the name itself. Every
// other option is only ever written in a tuple that carries @agent_name, so
// the list reads those only where @agent_name is set: a plain shell pane
// costs tmux 7 option lookups instead of 42, and a tmux option lookup walks
// every option tree of the pane's scope, about as dear as a pane field.
var StandaloneOptions = []string{"@agent_name", "@agent_state", "@agent_stamped_at",
	"@agent_ignore", "@agent_mute_until", "@agent_action", "@tma_watch_pid"}

// listed is OptionNames in the order the list prints them: the standalone
// ones, then the ones behind @agent_name.
var listed, bound = func() ([]string, []string) {
	alone := map[string]bool{}
	for _, o := range StandaloneOptions {
		alone[o] = true
	}
	var b []string
	for _, o := range OptionNames {
		if !alone[o] {
			b = append(b, o)
		}
	}
	return append(append([]string(nil), StandaloneOptions...), b...), b
}()

const sep = "\x1f"

// paneFields are read for every pane; the title goes last so a title that
// carries the separator cannot shift any other field.
var paneFields = []string{
	"pane_id", "session_name", "session_id", "window_index", "window_id", "pane_index",
	"pane_pid", "pane_current_command", "pane_current_path", "pane_width", "pane_height",
	"alternate_on", "pane_in_mode", "scroll_position", "window_activity",
	"&&:#{pane_active},#{window_active}", "pane_dead", "socket_path", "version",
	"@agent_summary", "@agent_session_summary", "@tma_last_poll", "@tma_status_at",
}

// PaneFormat is the list-panes -F format of a cycle: the pane fields, the
// options (see StandaloneOptions), the title last.
func PaneFormat() string {
	var b strings.Builder
	b.WriteString("TMAP")
	for _, f := range paneFields {
		b.WriteString(sep + "#{" + f + "}")
	}
	for _, o := range StandaloneOptions {
		b.WriteString(sep + "#{" + o + "}")
	}
	// Behind @agent_name: its options, or as many empty fields. Each field
	// brings its separator, so both branches print the same count.
	b.WriteString("#{?@agent_name,")
	for _, o := range bound {
		b.WriteString(sep + "#{" + o + "}")
	}
	b.WriteString("," + strings.Repeat(sep, len(bound)) + "}")
	b.WriteString(sep + "#{pane_title}")
	return b.String()
}

const clientFormat = "TMAC" + sep + "#{client_name}" + sep + "#{pane_id}" + sep + "#{session_name}" + sep + "#{client_activity}" + sep + "#{client_control_mode}"

// PaneInfo is one pane as list-panes reports it.
type PaneInfo struct {
	ID, Session, SessionID string
	Window                 int
	WindowID               string
	Index                  int
	PID                    int
	Command, CWD           string
	Width, Height          int
	AlternateOn, InMode    bool
	Scroll                 int // -1 outside a mode
	WindowActivity         int64
	Active, Dead           bool
	WindowSummary          string
	SessionSummary         string
	Opts                   map[string]string
	Title                  string
}

// ClientInfo is one attached client.
type ClientInfo struct {
	Name, Pane, Session string
	Activity            int64
	Control             bool
}

// Snapshot is what one list call returns.
type Snapshot struct {
	Server, Version string
	LastPoll        int64 // @tma_last_poll, the ambient-driver hint
	LastStatus      int64 // @tma_status_at: when `tma status` last committed a cycle
	Panes           []PaneInfo
	Clients         []ClientInfo
}

// List reads every pane on the server, every @agent_* option and the clients,
// in one tmux invocation.
func (c *Client) List(ctx context.Context) (*Snapshot, error) {
	out, _, err := c.Run(ctx, "", "list-panes", "-a", "-F", PaneFormat(), ";", "list-clients", "-F", clientFormat)
	if err != nil {
		return nil, err
	}
	return ParseList(out)
}

// ParseList parses the output of the cycle's list call.
func ParseList(out string) (*Snapshot, error) {
	// tmux 3.4 prints the unit separator back as the text \037.
	if !strings.Contains(out, sep) && strings.Contains(out, `\037`) {
		out = strings.ReplaceAll(out, `\037`, sep)
	}
	s := &Snapshot{}
	nf := 1 + len(paneFields) + len(OptionNames) + 1
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "TMAP"+sep):
			f := strings.SplitN(line, sep, nf)
			if len(f) != nf {
				return nil, fmt.Errorf("list-panes: %d fields, want %d", len(f), nf)
			}
			p := PaneInfo{
				ID: f[1], Session: f[2], SessionID: f[3], Window: atoi(f[4]), WindowID: f[5],
				Index: atoi(f[6]), PID: atoi(f[7]), Command: f[8], CWD: f[9],
				Width: atoi(f[10]), Height: atoi(f[11]), AlternateOn: f[12] == "1",
				InMode: f[13] == "1", Scroll: -1, WindowActivity: atoi64(f[15]),
				Active: f[16] == "1", Dead: f[17] == "1",
				WindowSummary: f[20], SessionSummary: f[21],
				Opts:  map[string]string{},
				Title: f[nf-1],
			}
			if f[14] != "" {
				p.Scroll = atoi(f[14])
			}
			if s.Server == "" {
				s.Server, s.Version, s.LastPoll, s.LastStatus = f[18], f[19], atoi64(f[22]), atoi64(f[23])
			}
			for i, o := range listed {
				if v := f[1+len(paneFields)+i]; v != "" {
					p.Opts[o] = v
				}
			}
			s.Panes = append(s.Panes, p)
		case strings.HasPrefix(line, "TMAC"+sep):
			f := strings.Split(line, sep)
			if len(f) < 6 {
				continue
			}
			s.Clients = append(s.Clients, ClientInfo{Name: f[1], Pane: f[2], Session: f[3], Activity: atoi64(f[4]), Control: f[5] == "1"})
		case line == "":
		default:
			// A pane title with a newline continues the previous pane's title.
			if n := len(s.Panes); n > 0 {
				s.Panes[n-1].Title += "\n" + line
			}
		}
	}
	return s, nil
}

func atoi(s string) int     { n, _ := strconv.Atoi(s); return n }
func atoi64(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// Capture reads the screens of the given panes in one invocation, a marker
// line before each, one source-file line per pane so a pane that vanished
// costs only its own screen. Panes missing from the result are gone.
func (c *Client) Capture(ctx context.Context, panes []string) (map[string]string, error) {
	if len(panes) == 0 {
		return map[string]string{}, nil
	}
	// The nonce only has to be beyond a guess by whatever prints into a
	// pane: math/rand/v2's generator is seeded from the OS per process.
	// crypto/rand would link its whole stack into every filter, a quarter
	// of a millisecond of each one's start.
	mark := fmt.Sprintf("@tma-capture:%012x:", rand.Uint64()&(1<<48-1))
	var in strings.Builder
	for _, p := range panes {
		if !ValidPaneID(p) {
			return nil, fmt.Errorf("invalid pane id %q", p)
		}
		// display -p runs its text through strftime too: keep % out of the marker.
		fmt.Fprintf(&in, "display -p -t %s '%s%s' ; capture-pane -p -e -t %s\n", p, mark, p[1:], p)
	}
	out, _, err := c.Run(ctx, in.String(), "source-file", "-")
	if err != nil {
		// A vanished pane fails its own line and sets the exit status; the
		// rest of the output is good. Anything else is a real failure.
		if e, ok := err.(*Error); !ok || (e.Kind != ErrPaneGone && e.Kind != nil) {
			return nil, err
		}
	}
	return splitCaptures(out, mark), nil
}

func splitCaptures(out, mark string) map[string]string {
	res := map[string]string{}
	cur := ""
	var b strings.Builder
	flush := func() {
		// A pane that vanished prints its marker (display -p falls back to
		// another target) but no screen: a live pane always prints its rows.
		if cur != "" && b.Len() > 0 {
			res[cur] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, mark) {
			flush()
			cur = "%" + strings.TrimRight(strings.TrimPrefix(line, mark), "\n")
			continue
		}
		if cur != "" {
			b.WriteString(line)
		}
	}
	flush()
	return res
}

// Exec runs a batch of command lines through source-file on stdin. Each line
// is its own error group: a failure costs that line only. The returned error
// is non-nil only when the server could not be reached; per-line failures
// come back as stderr text.
func (c *Client) Exec(ctx context.Context, lines []string) (string, error) {
	_, stderr, err := c.Batch(ctx, lines)
	return stderr, err
}

// Batch is Exec that also returns what the lines printed.
func (c *Client) Batch(ctx context.Context, lines []string) (stdout, stderr string, err error) {
	if len(lines) == 0 {
		return "", "", nil
	}
	stdout, stderr, err = c.Run(ctx, strings.Join(lines, "\n")+"\n", "source-file", "-")
	if err != nil {
		if e, ok := err.(*Error); ok && (e.Kind == nil || e.Kind == ErrPaneGone) {
			return stdout, stderr, nil
		}
	}
	return stdout, stderr, err
}
