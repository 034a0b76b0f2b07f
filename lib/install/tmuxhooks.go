package install

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/tmux"
)

// The tmux server hooks that clear attention.
const (
	HookSelectPane    = "after-select-pane"
	HookWindowChanged = "session-window-changed"
	HookFocusIn       = "pane-focus-in"
	hookOldWindow     = "after-select-window" // an older tma's; removed on install
)

// ClearCommand is the exact command tma installs on a hook: the installing
// tma by path, falling back to tma on $PATH. pane-focus-in carries no
// TMA_HOOK_KIND (it is not a departure from anything).
func ClearCommand(tmaPath, hook string) string {
	kind := "TMA_HOOK_KIND=" + hook + " "
	if hook == HookFocusIn {
		kind = ""
	}
	return fmt.Sprintf(`run-shell "if [ -x '%s' ]; then %s'%s' clear-attention '#{pane_id}' 2>/dev/null || true; else %stma clear-attention '#{pane_id}' 2>/dev/null || true; fi"`,
		tmaPath, kind, tmaPath, kind)
}

// CheckTmaPath refuses a path the hook command cannot quote.
func CheckTmaPath(p string) error {
	if strings.ContainsAny(p, "'\"\\$`#\n") || tmux.CheckValue(p) != nil {
		return fmt.Errorf("tma path %q carries a quote, backslash, $, # or control byte: tma cannot write it into a tmux hook", p)
	}
	return nil
}

// HookEntry is one entry of a global hook array.
type HookEntry struct {
	Hook    string
	Index   int
	Command string
}

// Ours reports whether an entry is one of tma's attention clears.
func (h HookEntry) Ours() bool { return strings.Contains(h.Command, "clear-attention") }

var hookLine = regexp.MustCompile(`^([a-z-]+)\[(\d+)\] (.*)$`)

// ParseHooks reads `show-hooks -g` output.
func ParseHooks(out string) []HookEntry {
	var hs []HookEntry
	for _, l := range strings.Split(out, "\n") {
		m := hookLine.FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[2])
		hs = append(hs, HookEntry{Hook: m[1], Index: i, Command: m[3]})
	}
	return hs
}

// normalize reduces a printed command to its run-shell argument, so the
// comparison does not depend on how a tmux version re-quotes it.
func normalize(cmd string) string {
	c := strings.TrimSpace(cmd)
	c = strings.TrimPrefix(c, "run-shell ")
	c = strings.TrimPrefix(c, "run ")
	if len(c) >= 2 && c[0] == '"' && c[len(c)-1] == '"' {
		var b strings.Builder
		for i := 1; i < len(c)-1; i++ {
			if c[i] == '\\' && i+1 < len(c)-1 {
				i++
			}
			b.WriteByte(c[i])
		}
		c = b.String()
	} else if len(c) >= 2 && c[0] == '\'' && c[len(c)-1] == '\'' {
		c = c[1 : len(c)-1]
	} else if len(c) >= 2 && c[0] == '{' && c[len(c)-1] == '}' {
		c = strings.TrimSpace(c[1 : len(c)-1])
	}
	return strings.ReplaceAll(c, "##", "#")
}

// SameCommand compares an installed command with the one this build writes.
func SameCommand(installed, want string) bool { return normalize(installed) == normalize(want) }

// TmuxHooks manages the attention-clear hooks on one server.
type TmuxHooks struct {
	Client  *tmux.Client
	TmaPath string
	Focus   bool // [focus] events
}

// Wanted lists the hooks this posture installs.
func (t *TmuxHooks) Wanted() []string {
	hs := []string{HookSelectPane, HookWindowChanged}
	if t.Focus {
		hs = append(hs, HookFocusIn)
	}
	return hs
}

// knownHooks are the hooks tma has ever installed on: each is asked for by
// name, since a bare `show-hooks -g` leaves some out (tmux 3.3 does not list
// pane-focus-in there).
var knownHooks = []string{HookSelectPane, HookWindowChanged, HookFocusIn, hookOldWindow}

// List reads the server's global entries of every hook tma uses, in one
// call.
func (t *TmuxHooks) List(ctx context.Context) ([]HookEntry, error) {
	var args []string
	for i, h := range knownHooks {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, "show-hooks", "-g", h)
	}
	out, _, err := t.Client.Run(ctx, "", args...)
	if err != nil {
		return nil, err
	}
	var hs []HookEntry
	seen := map[string]bool{}
	for _, e := range ParseHooks(out) {
		k := fmt.Sprintf("%s[%d]", e.Hook, e.Index)
		if !seen[k] {
			seen[k] = true
			hs = append(hs, e)
		}
	}
	return hs, nil
}

// HookState is one hook as --check sees it.
type HookState struct {
	Hook  string
	State string // "ok", "missing", "wiped", "stale", "unwanted"
}

// Problem renders a non-ok state as a --check line.
func (h HookState) Problem() string {
	switch h.State {
	case "missing":
		return "tmux hook " + h.Hook + " missing (config reload?)"
	case "wiped":
		return "tmux hook " + h.Hook + " wiped (installed but not present on this server, likely restarted)"
	case "stale":
		return "tmux hook " + h.Hook + " stale (runs a different command than this build installs; re-run install to rewrite it)"
	case "unwanted":
		return "tmux hook " + h.Hook + " carries tma's attention clear, which this posture does not install (re-run install to remove it)"
	}
	return ""
}

// Check compares the server with the wanted hooks; recorded names the hooks
// the install record says were installed on this server.
func (t *TmuxHooks) Check(entries []HookEntry, recorded []string) []HookState {
	rec := map[string]bool{}
	for _, r := range recorded {
		rec[r] = true
	}
	var out []HookState
	for _, h := range t.Wanted() {
		want := ClearCommand(t.TmaPath, h)
		state := "missing"
		if rec[h] {
			state = "wiped"
		}
		for _, e := range entries {
			if e.Hook != h || !e.Ours() {
				continue
			}
			if SameCommand(e.Command, want) {
				state = "ok"
				break
			}
			state = "stale"
		}
		out = append(out, HookState{Hook: h, State: state})
	}
	wanted := map[string]bool{}
	for _, h := range t.Wanted() {
		wanted[h] = true
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Ours() && !wanted[e.Hook] && !seen[e.Hook] {
			seen[e.Hook] = true
			out = append(out, HookState{Hook: e.Hook, State: "unwanted"})
		}
	}
	return out
}

// InstallLines are the commands that bring the server to the wanted hooks:
// append what is missing (-ga keeps everyone else's entries), rewrite a
// stale entry in place, drop duplicates and tma entries on hooks this
// posture does not install (an older tma's after-select-window included).
func (t *TmuxHooks) InstallLines(entries []HookEntry) ([]string, error) {
	if err := CheckTmaPath(t.TmaPath); err != nil {
		return nil, err
	}
	wanted := map[string]bool{}
	for _, h := range t.Wanted() {
		wanted[h] = true
	}
	var lines []string
	done := map[string]bool{}
	for _, e := range entries {
		if !e.Ours() {
			continue
		}
		target := fmt.Sprintf("%s[%d]", e.Hook, e.Index)
		switch {
		case !wanted[e.Hook] || done[e.Hook]:
			lines = append(lines, "set-hook -gu "+target)
		case SameCommand(e.Command, ClearCommand(t.TmaPath, e.Hook)):
			done[e.Hook] = true
		default:
			lines = append(lines, "set-hook -g "+target+" "+tmux.Quote(ClearCommand(t.TmaPath, e.Hook)))
			done[e.Hook] = true
		}
	}
	for _, h := range t.Wanted() {
		if !done[h] {
			lines = append(lines, "set-hook -ga "+h+" "+tmux.Quote(ClearCommand(t.TmaPath, h)))
		}
	}
	return lines, nil
}

// UninstallLines remove every tma attention clear, on any hook.
func UninstallLines(entries []HookEntry) []string {
	var lines []string
	for _, e := range entries {
		if e.Ours() {
			lines = append(lines, fmt.Sprintf("set-hook -gu %s[%d]", e.Hook, e.Index))
		}
	}
	return lines
}

// Apply runs the lines in one source-file call; a line tmux rejects is an
// error.
func (t *TmuxHooks) Apply(ctx context.Context, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	stderr, err := t.Client.Exec(ctx, lines)
	if err != nil {
		return err
	}
	if s := strings.TrimSpace(stderr); s != "" {
		return fmt.Errorf("tmux: %s", s)
	}
	return nil
}

// ClearAgentOptions unsets every @agent_* option (but @agent_ignore, the
// user's own) on every pane, window and session of the server. It reads the
// names in use with one listing and one batched show, and clears them in
// one batched call. It returns the number of panes touched.
func ClearAgentOptions(ctx context.Context, c *tmux.Client) (int, error) {
	out, _, err := c.Run(ctx, "", "list-panes", "-a", "-F", "#{pane_id} #{window_id} #{session_id}")
	if err != nil {
		return 0, err
	}
	type scope struct{ flag, target string }
	var targets []scope
	seen := map[string]bool{}
	panes := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		panes++
		for i, s := range []scope{{"-p", f[0]}, {"-w", f[1]}, {"", f[2]}} {
			_ = i
			if !seen[s.target] {
				seen[s.target] = true
				targets = append(targets, s)
			}
		}
	}
	if len(targets) == 0 {
		return 0, nil
	}
	show := make([]string, 0, len(targets))
	for _, s := range targets {
		show = append(show, strings.TrimSpace("show-options "+s.flag+" -t "+tmux.Quote(s.target)))
	}
	listed, _, err := c.Run(ctx, strings.Join(show, "\n")+"\n", "source-file", "-")
	if err != nil {
		if e, ok := err.(*tmux.Error); !ok || e.Kind != nil {
			return 0, err
		}
	}
	names := map[string]bool{}
	for _, l := range strings.Split(listed, "\n") {
		name, _, _ := strings.Cut(l, " ")
		if strings.HasPrefix(name, "@agent_") && name != "@agent_ignore" && tmux.CheckValue(name) == nil && !strings.ContainsAny(name, "'\";#") {
			names[name] = true
		}
	}
	if len(names) == 0 {
		return panes, nil
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var lines []string
	for _, s := range targets {
		var cmds []string
		for _, n := range sorted {
			cmds = append(cmds, strings.Join(strings.Fields("set "+s.flag+" -u -t "+tmux.Quote(s.target)+" "+n), " "))
		}
		lines = append(lines, strings.Join(cmds, " ; "))
	}
	if _, err := c.Exec(ctx, lines); err != nil {
		return panes, err
	}
	return panes, nil
}
