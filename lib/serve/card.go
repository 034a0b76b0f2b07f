package serve

import (
	"context"

	"github.com/tmaproject/tma/lib/card"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/record"
)

// PaneCard is what the host knows of one pane's blocker: its title-free row
// and the card built from it.
type PaneCard struct {
	Row  record.AgentRow
	Card card.Card
}

// cardFrame answers a card request. The screen lane's words (question,
// choices, text) are dialog text read off the pane: they go only to a
// device that may answer the dialog (act:answer), because what a dialog
// shows (a command line, a path, a plan) is what the notify payload keeps
// off every third party; a read-only device gets the kind, lane and
// confidence, and withheld true.
func (s *session) cardFrame(ctx context.Context, id string, q *request) {
	if !paneRE.MatchString(q.Pane) {
		s.errorFrame(id, CodeBadRequest, "card needs a pane id (%N)")
		return
	}
	pc, err := s.c.Card(ctx, q.Pane)
	if err != nil {
		s.c.Log("device %s: card %s: %v", s.device.Name, q.Pane, err)
		s.errorFrame(id, CodeInternal, err.Error())
		return
	}
	if pc == nil {
		s.errorFrame(id, CodeNotFound, "no agent in pane "+q.Pane)
		return
	}
	s.frame(append(Fields("schema", Schema, "id", id, "t", "card"), CardBody(pc, s.device)...))
}

// CardBody is a card's fields as d may read them: the screen lane's words
// go only to a device holding act:answer; another gets withheld true.
func CardBody(pc *PaneCard, d *device.Device) Obj {
	c := pc.Card
	withheld := false
	if deref(c.Lane) == card.LaneScreen && !d.Has(device.ScopeAnswer) &&
		(c.Question != nil || c.Text != nil || len(c.Options) > 0) {
		c.Question, c.Text, c.Options, withheld = nil, nil, []card.Option{}, true
	}
	r := pc.Row
	return Fields("pane", r.Pane, "agent", r.Agent, "state", r.State,
		"detail", r.Detail, "episode_ms", r.EpisodeMS, "kind", c.Kind, "lane", c.Lane, "confidence", c.Confidence,
		"tool", c.Tool, "summary", c.Summary, "request", c.Request, "question", c.Question, "options", c.Options,
		"text", c.Text, "withheld", withheld)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
