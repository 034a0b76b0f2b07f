package view

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tmaproject/tma/lib/record"
)

// Explain is the debug explain --json document. Absent optional fields are
// explicit nulls.
type Explain struct {
	Schema            int            `json:"schema"`
	Pane              string         `json:"pane"`
	Locator           string         `json:"locator"`
	Command           string         `json:"command"`
	Title             string         `json:"title"`
	Flags             ExplainFlags   `json:"flags"`
	Agent             *string        `json:"agent"`
	Identity          *string        `json:"identity"`
	AgentPID          *int           `json:"agent_pid"`
	ForegroundIsAgent bool           `json:"foreground_is_agent"`
	OutOfScope        *string        `json:"out_of_scope"`
	Ignored           *string        `json:"ignored"`
	Procs             int            `json:"procs"`
	Prior             *ExplainPrior  `json:"prior"`
	Evidence          []string       `json:"evidence"`
	Rules             []ExplainRule  `json:"rules"`
	Verdict           *ExplainResult `json:"verdict"`
}

// ExplainFlags are the gates' inputs.
type ExplainFlags struct {
	AlternateOn    bool  `json:"alternate_on"`
	Scrolled       bool  `json:"scrolled"`
	HistoryView    bool  `json:"history_view"`
	WindowActivity int64 `json:"window_activity"`
}

// ExplainPrior is the stamp the pane carried.
type ExplainPrior struct {
	State      string  `json:"state"`
	Detail     *string `json:"detail"`
	Source     string  `json:"source"`
	EvidenceAt *int64  `json:"evidence_at"`
	Since      *int64  `json:"since"`
	StampedAt  *int64  `json:"stamped_at"`
}

// ExplainRule is one rule as evaluated.
type ExplainRule struct {
	Index    int     `json:"index"`
	State    string  `json:"state"`
	Detail   *string `json:"detail"`
	Priority int     `json:"priority"`
	Region   string  `json:"region"`
	Label    string  `json:"label"`
	Matched  bool    `json:"matched"`
	Excerpt  *string `json:"excerpt"`
}

// ExplainResult is the verdict.
type ExplainResult struct {
	State           string          `json:"state"`
	Detail          *string         `json:"detail"`
	Action          string          `json:"action"`
	MayOverride     bool            `json:"may_override"`
	SetAttention    bool            `json:"set_attention"`
	EpisodeReset    bool            `json:"episode_reset"`
	WinningEvidence record.Evidence `json:"winning_evidence"`
}

func sp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ip(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

// BuildExplain assembles the document from a folded, explained pane record.
func BuildExplain(p *record.Pane) *Explain {
	v := p.Verdict
	x := &Explain{Schema: 1, Pane: p.Pane, Locator: p.Locator(), Command: p.Command, Title: p.Title,
		Flags:             ExplainFlags{AlternateOn: p.AlternateOn, Scrolled: p.Scroll > 0, WindowActivity: p.WindowActivity},
		ForegroundIsAgent: p.ForegroundIsAgent, Procs: p.Procs, Evidence: []string{}, Rules: []ExplainRule{},
	}
	switch p.Class {
	case record.ClassIgnored:
		x.Ignored = sp(p.Opts["@agent_ignore"])
		x.OutOfScope = sp("ignored")
	case record.ClassRemote, record.ClassNested:
		x.OutOfScope = sp(p.Class)
	}
	if p.Agent != "" {
		x.Agent, x.Identity = sp(p.Agent), sp(p.Identity)
		pid := p.AgentPID
		x.AgentPID = &pid
	}
	pr := record.ParsePrior(p.Opts)
	if pr.State != "" {
		x.Prior = &ExplainPrior{State: pr.State, Detail: sp(pr.Detail), Source: pr.Source, EvidenceAt: ip(pr.EvidenceAt), Since: ip(pr.Since), StampedAt: ip(pr.StampedAt)}
	}
	if v == nil {
		return x
	}
	x.Evidence = append(x.Evidence, v.Trace...)
	for _, r := range v.Rules {
		x.Rules = append(x.Rules, ExplainRule{Index: r.Index, State: r.State, Detail: sp(r.Detail), Priority: r.Priority,
			Region: r.Region, Label: r.Label, Matched: r.Matched, Excerpt: sp(r.Excerpt)})
	}
	x.Flags.HistoryView = v.HistoryView
	if v.Action != record.ActNone {
		x.Verdict = &ExplainResult{State: v.State, Detail: sp(v.Detail), Action: publishOrHold(v.Action), MayOverride: v.MayOverride,
			SetAttention: v.SetAttention, EpisodeReset: v.EpisodeReset, WinningEvidence: v.Winning}
	}
	return x
}

func publishOrHold(a string) string {
	if a == record.ActPublish || a == record.ActClear {
		return "publish"
	}
	return "hold"
}

// ExplainJSON writes the document on one line.
func ExplainJSON(w io.Writer, p *record.Pane) error {
	b, err := json.Marshal(BuildExplain(p))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// ExplainText writes the aligned human report.
func ExplainText(w io.Writer, p *record.Pane) error {
	x := BuildExplain(p)
	var b strings.Builder
	line := func(k, format string, args ...any) { fmt.Fprintf(&b, "%-9s %s\n", k, fmt.Sprintf(format, args...)) }
	line("pane", "%s  (%s)", p.Pane, x.Locator)
	line("command", "%s", record.Printable(p.Command))
	line("title", "%s", record.Printable(p.Title))
	line("flags", "alternate_on=%t scrolled=%t history_view=%t window_activity=%d", x.Flags.AlternateOn, x.Flags.Scrolled, x.Flags.HistoryView, p.WindowActivity)
	switch {
	case p.Class == record.ClassIgnored:
		line("agent", "(ignored via @agent_ignore = %s)", record.Printable(p.Opts["@agent_ignore"]))
	case p.Class == record.ClassNested:
		line("agent", "(none — nested multiplexer %s: run tma on the inner server)", record.Printable(p.Command))
	case p.Agent == "" && p.Class == record.ClassRemote:
		line("agent", "(none — remote shell %s: neither the process walk nor a capture crosses it)", record.Printable(p.Command))
	case p.Agent == "":
		line("agent", "(none — no manifest process_names matched)")
	case p.Class == record.ClassRemote:
		line("agent", "%s (pid %d, foreground_is_agent=false, registered behind remote shell %s)", p.Agent, p.AgentPID, record.Printable(p.Command))
		line("boundary", "remote shell %s — the cycle holds this pane's stamps and captures nothing; hook events are its only evidence", record.Printable(p.Command))
	default:
		line("agent", "%s (pid %d, foreground_is_agent=%t, via %s)", p.Agent, p.AgentPID, p.ForegroundIsAgent, p.Identity)
	}
	if p.Procs >= 0 {
		line("process", "%d procs in pane tree", p.Procs)
	} else {
		line("process", "the process walk failed")
	}
	if x.Prior != nil {
		pr := record.ParsePrior(p.Opts)
		line("prior", "%s / %s src=%s evidence_at=%d since=%d", pr.State, orDash(pr.Detail), pr.Source, pr.EvidenceAt, pr.Since)
	} else if p.Agent != "" {
		line("prior", "(no stamp)")
	}
	if p.Capture != nil {
		line("capture", "%d lines read at %d", strings.Count(p.Capture.Text, "\n"), p.Capture.AtMS)
	} else if p.CaptureSkipped != "" {
		line("capture", "skipped (%s)", p.CaptureSkipped)
	}
	for _, r := range x.Rules {
		mark := "[ - ]"
		if r.Matched {
			mark = "[match]"
		}
		ex := ""
		if r.Excerpt != nil {
			ex = "  «" + record.Printable(*r.Excerpt) + "»"
		}
		line("rule", "%-7s %s  (%s, priority %d)%s", mark, r.Label, r.Region, r.Priority, ex)
	}
	for _, t := range x.Evidence {
		line("step", "%s", t)
	}
	if x.Verdict != nil {
		v := x.Verdict
		line("verdict", "%s%s %s (winning: %s at %d — %s)", v.State, slash(v.Detail), v.Action, v.WinningEvidence.Source, v.WinningEvidence.At, v.WinningEvidence.Label)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func slash(d *string) string {
	if d == nil {
		return ""
	}
	return "/" + *d
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
