package view

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/record"
)

// Classes is the fixed surface order.
var Classes = []string{"blocked", "working", "done", "idle", "unknown"}

var attentionRank = map[string]int{"blocked": 0, "done": 1, "working": 2, "idle": 3, "unknown": 4}

// SortLs orders rows by class (blocked, done, working, idle, unknown), then
// session name, window index and pane index.
func SortLs(rows []*record.Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if ra, rb := attentionRank[a.Row.Class()], attentionRank[b.Row.Class()]; ra != rb {
			return ra < rb
		}
		if a.TmuxSession != b.TmuxSession {
			return a.TmuxSession < b.TmuxSession
		}
		if a.Window != b.Window {
			return a.Window < b.Window
		}
		return a.Index < b.Index
	})
}

// clean keeps a free-text field on one tab-separated line.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// LsPlain writes one tab-separated line per row: pane, agent, state, detail,
// since, locator, title, attention, muted, repo, branch, worktree.
func LsPlain(w io.Writer, rows []*record.Row) error {
	for _, r := range rows {
		a := &r.Row
		since := ""
		if a.Since != nil {
			since = strconv.FormatInt(*a.Since, 10)
		}
		wt := ""
		if a.Worktree != nil && *a.Worktree {
			wt = "1"
		}
		f := []string{a.Pane, record.Printable(a.Agent), a.State, record.Printable(deref(a.Detail)), since, record.Printable(a.Locator), record.Printable(a.Title),
			flag(a.Attention), flag(a.Muted), record.Printable(deref(a.Repo)), record.Printable(deref(a.Branch)), wt}
		if _, err := fmt.Fprintln(w, strings.Join(f, "\t")); err != nil {
			return err
		}
	}
	return nil
}

// LsJSON writes the schema-1 document on one line.
func LsJSON(w io.Writer, rows []*record.Row) error {
	doc := record.Document{Schema: 1, Agents: []record.AgentRow{}}
	for _, r := range rows {
		doc.Agents = append(doc.Agents, r.Row)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Counts tallies rows by disjoint class.
func Counts(rows []*record.Row) map[string]int {
	c := map[string]int{}
	for _, r := range rows {
		c[r.Row.Class()]++
	}
	return c
}

// Style is a class's glyph and colour.
type Style struct{ Glyph, Color string }

// StatusTmux renders the tmux one-liner: each non-zero class wrapped in a
// clickable range, in the fixed order; nothing when there are no agents.
func StatusTmux(rows []*record.Row, style func(string) Style) string {
	c := Counts(rows)
	var parts []string
	for _, k := range Classes {
		if c[k] == 0 {
			continue
		}
		s := style(k)
		// A glyph is text inside a format: a # in it must not start one.
		parts = append(parts, fmt.Sprintf("#[range=user|tma:%s]#[fg=%s]%s%d#[norange]", k, s.Color, strings.ReplaceAll(s.Glyph, "#", "##"), c[k]))
	}
	return strings.Join(parts, " ")
}

// StatusPlain renders <glyph><count> segments with no markup.
func StatusPlain(rows []*record.Row, style func(string) Style) string {
	c := Counts(rows)
	var parts []string
	for _, k := range Classes {
		if c[k] > 0 {
			parts = append(parts, style(k).Glyph+strconv.Itoa(c[k]))
		}
	}
	return strings.Join(parts, " ")
}

// StatusJSON renders every class, zeros included.
func StatusJSON(rows []*record.Row) string {
	c := Counts(rows)
	return fmt.Sprintf(`{"schema":1,"blocked":%d,"working":%d,"done":%d,"idle":%d,"unknown":%d}`,
		c["blocked"], c["working"], c["done"], c["idle"], c["unknown"])
}

// StatusProm renders the Prometheus text exposition.
func StatusProm(rows []*record.Row, nowMS int64) string {
	c := Counts(rows)
	var b strings.Builder
	b.WriteString("# HELP tma_agents Agent panes in each state class. The classes are disjoint: done is idle with unreviewed output.\n")
	b.WriteString("# TYPE tma_agents gauge\n")
	for _, k := range []string{"working", "blocked", "idle", "unknown", "done"} {
		fmt.Fprintf(&b, "tma_agents{state=%q} %d\n", k, c[k])
	}
	b.WriteString("# HELP tma_agent_state_seconds Seconds the pane has held its current state class.\n")
	b.WriteString("# TYPE tma_agent_state_seconds gauge\n")
	for _, r := range rows {
		secs := 0.0
		if r.Row.Since != nil && *r.Row.Since > 0 && nowMS > *r.Row.Since {
			secs = float64(nowMS-*r.Row.Since) / 1000
		}
		fmt.Fprintf(&b, "tma_agent_state_seconds{pane=%q,agent=%q,state=%q} %.3f\n", r.Row.Pane, promLabel(r.Row.Agent), r.Row.Class(), secs)
	}
	return b.String()
}

func promLabel(s string) string { return record.Printable(s) }
