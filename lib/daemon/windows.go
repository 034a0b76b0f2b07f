package daemon

import (
	"sort"
	"strings"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// [daemon.window_names]: the daemon names each window holding an agent
// pane after its agents, from a format of {agent} {state} {detail} {repo}
// {branch}. It saves the window's own name and automatic-rename on the
// first rename and gives both back when the last agent leaves, when the
// daemon stops or when the feature is turned off; it leaves a window the
// user renamed since alone. This file is the pure half: the names and the
// plan of writes.

// MaxWindowName caps a name tma writes.
const MaxWindowName = 64

// The window options the feature keeps.
const (
	OptNameOrig       = "@tma_window_name_orig"
	OptAutorenameOrig = "@tma_window_autorename_orig"
	OptNameLast       = "@tma_window_name_last"
)

// WindowKey names a window as rows know it: its session and index.
type WindowKey struct {
	Session string
	Index   int
}

// stateRank is the rollup's order: the window's {state} is its most
// urgent, done counting as idle.
var stateRank = map[string]int{"blocked": 0, "working": 1, "idle": 2, "unknown": 3}

// WindowNames renders the name each window holding an agent row should
// have. Rows carry their repo/branch labels when the caller resolved them.
// The window's tokens come from its most urgent row (the rollup's order,
// then the longest in its state).
func WindowNames(format string, rows []*record.Row) map[WindowKey]string {
	lead := map[WindowKey]*record.Row{}
	for _, r := range rows {
		k := WindowKey{r.TmuxSession, r.Window}
		if cur, ok := lead[k]; !ok || urgent(r, cur) {
			lead[k] = r
		}
	}
	out := map[WindowKey]string{}
	for k, r := range lead {
		vals := map[string]string{"agent": r.Row.Agent, "state": r.Row.State, "detail": deref(r.Row.Detail),
			"repo": deref(r.Row.Repo), "branch": deref(r.Row.Branch)}
		out[k] = RenderName(format, vals)
	}
	return out
}

func urgent(a, b *record.Row) bool {
	ra, rb := stateRank[a.Row.State], stateRank[b.Row.State]
	if ra != rb {
		return ra < rb
	}
	sa, sb := since(a), since(b)
	if sa != sb {
		return sa < sb
	}
	return a.Index < b.Index
}

func since(r *record.Row) int64 {
	if r.Row.Since == nil || *r.Row.Since <= 0 {
		return 1<<63 - 1
	}
	return *r.Row.Since
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RenderName fills format's {tokens} from vals. A token that resolves to
// nothing takes a separator with it (the text after it, or before it when
// it ends the format), so "{repo}:{state}" outside a checkout is
// "working", not ":working". Control bytes are dropped and the name is
// capped at MaxWindowName.
func RenderName(format string, vals map[string]string) string {
	type part struct {
		text  string
		token bool
	}
	var parts []part
	for rest := format; rest != ""; {
		i := strings.IndexByte(rest, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(rest[i:], '}')
		}
		if i < 0 || j < 0 {
			parts = append(parts, part{text: rest})
			break
		}
		name := rest[i+1 : i+j]
		if _, known := vals[name]; !known {
			parts = append(parts, part{text: rest[:i+j+1]}) // not a token: literal braces
			rest = rest[i+j+1:]
			continue
		}
		if i > 0 {
			parts = append(parts, part{text: rest[:i]})
		}
		parts = append(parts, part{text: vals[name], token: true})
		rest = rest[i+j+1:]
	}
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if !p.token || p.text != "" {
			continue
		}
		switch {
		case i+1 < len(parts) && !parts[i+1].token:
			parts = append(parts[:i], parts[i+2:]...)
		case i > 0 && !parts[i-1].token:
			parts = append(parts[:i-1], parts[i+1:]...)
			i--
		default:
			parts = append(parts[:i], parts[i+1:]...)
		}
		i--
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text)
	}
	name := []rune(record.OneLine(b.String()))
	if len(name) > MaxWindowName {
		name = name[:MaxWindowName]
	}
	return strings.TrimSpace(string(name))
}

// Window is one window as the server shows it, with the options the
// feature keeps.
type Window struct {
	ID         string // @N
	Key        WindowKey
	Name       string
	AutoRename string // the automatic-rename in effect: "on" or "off"
	Last       string // @tma_window_name_last
	Orig       string // @tma_window_name_orig
	HasOrig    bool
	AutoOrig   string // @tma_window_autorename_orig
}

// WindowFormat is the list-windows -a format ParseWindows reads.
const WindowFormat = "#{window_id}\x1f#{session_name}\x1f#{window_index}\x1f#{?automatic-rename,on,off}\x1f#{@tma_window_name_last}\x1f#{?#{@tma_window_name_orig},1,0}\x1f#{@tma_window_autorename_orig}\x1f#{@tma_window_name_orig}\x1f#{window_name}"

// ParseWindows reads list-windows -a -F WindowFormat (the names last: they
// are free text; tmux 3.4 prints the separator as \037).
func ParseWindows(out string) []Window {
	out = strings.ReplaceAll(out, `\037`, "\x1f")
	var ws []Window
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, "\x1f", 9)
		if len(f) != 9 || !strings.HasPrefix(f[0], "@") {
			continue
		}
		idx := 0
		for _, c := range f[2] {
			idx = idx*10 + int(c-'0')
		}
		ws = append(ws, Window{ID: f[0], Key: WindowKey{f[1], idx}, AutoRename: f[3], Last: f[4], HasOrig: f[5] == "1",
			AutoOrig: f[6], Orig: f[7], Name: f[8]})
	}
	return ws
}

// PlanNames is the writes that bring the windows to want (nil: restore
// every window tma renamed, as on stop or with the feature off). A window
// with a name to have is renamed only when its name differs, saving its
// own name and automatic-rename first; one the user renamed since tma's
// last write is left alone. A window tma renamed that has no agent left is
// given its name and automatic-rename back, and the options dropped (only
// the options, if the user has renamed it since).
func PlanNames(windows []Window, want map[WindowKey]string) []string {
	var lines []string
	sort.Slice(windows, func(i, j int) bool { return windows[i].ID < windows[j].ID })
	for _, w := range windows {
		t := tmux.Quote(w.ID)
		name, ok := want[w.Key]
		switch {
		case ok && name != "":
			if w.HasOrig && w.Name != w.Last {
				continue // renamed by the user: theirs until the next restore
			}
			if w.Name == name {
				continue
			}
			var cmds []string
			if !w.HasOrig {
				cmds = append(cmds, "set -w -t "+t+" "+OptNameOrig+" "+tmux.Quote(record.OneLine(w.Name)),
					"set -w -t "+t+" "+OptAutorenameOrig+" "+w.AutoRename)
			}
			cmds = append(cmds, "rename-window -t "+t+" "+tmux.Quote(name),
				"set -w -t "+t+" "+OptNameLast+" "+tmux.Quote(name))
			lines = append(lines, strings.Join(cmds, " ; "))
		case w.HasOrig:
			// A window the user renamed since keeps their name, and the
			// automatic-rename their rename turned off.
			var cmds []string
			if w.Name == w.Last {
				cmds = append(cmds, "rename-window -t "+t+" "+tmux.Quote(record.OneLine(w.Orig)))
				if w.AutoOrig == "on" || w.AutoOrig == "off" {
					cmds = append(cmds, "set -w -t "+t+" automatic-rename "+w.AutoOrig)
				}
			}
			cmds = append(cmds, "set -wu -t "+t+" "+OptNameOrig, "set -wu -t "+t+" "+OptAutorenameOrig, "set -wu -t "+t+" "+OptNameLast)
			lines = append(lines, strings.Join(cmds, " ; "))
		}
	}
	return lines
}
