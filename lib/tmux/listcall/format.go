package listcall

import "strings"

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
	"@tma_next_at",
}

// StandaloneOptions may stand on a pane without @agent_name: the user's
// @agent_ignore, what outlives an agent (a pending action's lock, a mute, a
// watcher's pid), a state another tool wrote, and the name itself. Every
// other option is only ever written in a tuple that carries @agent_name, so
// the list reads those only where @agent_name is set: a plain shell pane
// costs tmux 7 option lookups instead of 46, and a tmux option lookup walks
// every option tree of the pane's scope, about as dear as a pane field.
var StandaloneOptions = []string{"@agent_name", "@agent_state", "@agent_stamped_at",
	"@agent_ignore", "@agent_mute_until", "@agent_action", "@tma_watch_pid"}

// Listed is OptionNames in the order the list prints them: the standalone
// ones, then Bound, the ones behind @agent_name.
var Listed, Bound = func() ([]string, []string) {
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

// Sep separates fields: a unit separator, which no path, name or title a
// tmux format prints contains unescaped.
const Sep = "\x1f"

// The cycle's list is four commands in one tmux call: the server, every
// window, every client, every pane. tmux expands each #{…} of a format per
// line it prints, at about the cost of a pane field each (measured: 2–3 µs
// per field and pane on a 2-vCPU machine), so what is the same for every
// pane of a window or of the server is asked once per window or once
// in all, not once per pane.
//
// Panes come last, and the title is the last field of a pane line, so a
// title's newlines can only continue a pane line; every line starts with a
// prefix holding a per-call nonce, so no title can forge a line.

// PaneFields are read for every pane.
var PaneFields = []string{
	"pane_id", "window_id", "pane_index", "pane_pid", "pane_current_command",
	"pane_current_path", "pane_width", "pane_height", "alternate_on", "pane_in_mode",
	"scroll_position", "pane_active", "pane_dead",
}

// WindowFields are read once per window: the window's and its session's.
var WindowFields = []string{
	"window_id", "session_name", "session_id", "window_index", "window_activity",
	"window_active", "@agent_summary", "@agent_session_summary",
}

// ServerFields are read once.
var ServerFields = []string{"socket_path", "version", "@tma_last_poll", "@tma_status_at"}

// ClientFields are read once per client.
var ClientFields = []string{"client_name", "pane_id", "session_name", "client_activity", "client_control_mode"}

// PaneFormat is the list-panes -F format behind prefix: the pane fields, the
// standalone options, the bound ones behind @agent_name, the title last.
func PaneFormat(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, f := range PaneFields {
		b.WriteString(Sep + "#{" + f + "}")
	}
	for _, o := range StandaloneOptions {
		b.WriteString(Sep + "#{" + o + "}")
	}
	// Behind @agent_name: its options, or as many empty fields. Each field
	// brings its separator, so both branches print the same count.
	b.WriteString("#{?@agent_name,")
	for _, o := range Bound {
		b.WriteString(Sep + "#{" + o + "}")
	}
	b.WriteString("," + strings.Repeat(Sep, len(Bound)) + "}")
	b.WriteString(Sep + "#{pane_title}")
	return b.String()
}

// FieldsFormat is prefix and fields, each behind a separator.
func FieldsFormat(prefix string, fields []string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, f := range fields {
		b.WriteString(Sep + "#{" + f + "}")
	}
	return b.String()
}

// Args are the list call's tmux command words for nonce (after the global
// flags).
func Args(nonce string) []string {
	return []string{
		"display-message", "-p", FieldsFormat("TMAS"+nonce, ServerFields), ";",
		"list-windows", "-a", "-F", FieldsFormat("TMAW"+nonce, WindowFields), ";",
		"list-clients", "-F", FieldsFormat("TMAC"+nonce, ClientFields), ";",
		"list-panes", "-a", "-F", PaneFormat("TMAP" + nonce),
	}
}

// Argv is every word after the binary of a tmux call with args: -u (tma's
// clients never draw a terminal, so they always say UTF-8; see lib/tmux),
// the server's flags, the command.
func Argv(socketArgs, args []string) []string {
	return append(append([]string{"-u"}, socketArgs...), args...)
}
