package transcript

import (
	"fmt"
	"io"
	"strings"
)

// adapters are the JSONL stores' record readers, by agent.
var adapters = map[string]adapter{
	"claude": claudeRecord,
	"codex":  codexRecord,
	"gemini": geminiRecord,
	"pi":     piRecord,
}

// Read locates the pane's store and serves the request from it.
func Read(p Pane, e Env, req Request) (*Document, *Refusal) {
	src, ref := Locate(p, e)
	if ref != nil {
		return nil, ref
	}
	page, ref := ReadSource(src, req)
	if ref != nil {
		return nil, ref
	}
	return &Document{Pane: p.ID, Agent: src.Agent, Page: page, Single: req.Event != ""}, nil
}

// ReadSource serves the request from a located store.
func ReadSource(src Source, req Request) (*Page, *Refusal) {
	var page *Page
	var ref *Refusal
	if src.Agent == "opencode" {
		page, ref = opencodePage(src.Path, src.Session, req)
	} else {
		ad, ok := adapters[src.Agent]
		if !ok {
			return nil, refuse(CodeUnsupportedStore, "tma does not read %s's transcripts", src.Agent)
		}
		page, ref = jsonlPage(src.Path, ad, req)
	}
	if ref != nil {
		return nil, ref
	}
	page.Session.Agent = src.Agent
	if page.Session.SessionID == "" {
		page.Session.SessionID = src.Session
	}
	return page, nil
}

// WriteText prints a page the way text mode does: one line per event,
// newest first (kind, the store's timestamp, the first line of the body).
func WriteText(w io.Writer, p *Page) {
	for _, e := range p.Events {
		ts := e.TS
		if ts == "" {
			ts = "-"
		}
		fmt.Fprintf(w, "%-16s %-24s  %s\n", e.Kind, ts, strings.Map(printable, e.Preview))
	}
}

// printable keeps a store's control bytes off the terminal.
func printable(r rune) rune {
	if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
		return ' '
	}
	return r
}

// WriteEventText prints --event's one event: its header line, then its
// whole body.
func WriteEventText(w io.Writer, p *Page) {
	WriteText(w, p)
	if len(p.Events) == 1 && !p.Events[0].NoBody {
		body := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' {
				return r
			}
			return printable(r)
		}, p.Events[0].Body)
		fmt.Fprintln(w, body)
	}
}
