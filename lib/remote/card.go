package remote

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmaproject/tma/lib/card"
)

// Card is a card frame: what a remote pane waits on. Withheld is the host
// keeping the dialog's words from a device without act:answer.
type Card struct {
	Pane   string  `json:"pane"`
	Agent  string  `json:"agent"`
	State  string  `json:"state"`
	Detail *string `json:"detail"`
	card.Card
	Withheld bool `json:"withheld"`
}

// Card asks the host what pane waits on, over a held connection: one card
// request (a cycle on the host, and one capture when the stamps do not say).
func (c *Conn) Card(ctx context.Context, pane string) (*Card, error) {
	var f Card
	if err := c.ask(ctx, "card", map[string]any{"pane": pane}, "card", c.r.Timeout(), &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// laneWords says where a card's content came from, as a preview reads.
var laneWords = map[string]string{
	card.LaneHook:   "from its hook",
	card.LaneAPI:    "from its server's event",
	card.LaneScreen: "read off its screen",
}

// Preview is the card as the picker's preview of the remote row key shows
// it, "" when the pane waits on nothing (the caller's note stands).
func (c *Card) Preview(key string) string {
	if c == nil || c.Kind == card.KindNone {
		return ""
	}
	host, pane, _ := strings.Cut(key, ":")
	var b strings.Builder
	state := c.State
	if c.Detail != nil {
		state += "/" + *c.Detail
	}
	fmt.Fprintf(&b, "%s  %s  %s\n", key, c.Agent, state)
	fmt.Fprintf(&b, "waits on: %s · %s", c.Kind, laneWords[deref(c.Lane)])
	if c.Confidence != nil {
		fmt.Fprintf(&b, " (%s)", *c.Confidence)
	}
	b.WriteString("\n\n")
	if c.Tool != nil {
		b.WriteString(*c.Tool)
		if c.Summary != nil {
			b.WriteString("  " + *c.Summary)
		}
		b.WriteString("\n")
	}
	if c.Text != nil {
		b.WriteString(*c.Text + "\n")
	}
	if len(c.Options) > 0 {
		b.WriteString("\n")
		for i, o := range c.Options {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, o.Label)
			if o.Description != nil {
				fmt.Fprintf(&b, "     %s\n", *o.Description)
			}
		}
	}
	switch {
	case c.Withheld:
		b.WriteString("(the host keeps the dialog's words from this device: it does not hold act:answer)\n")
	case deref(c.Confidence) == card.Failed:
		b.WriteString("(nothing readable on its screen)\n")
	}
	fmt.Fprintf(&b, "\nanswer: tma act <action> --host %s --pane %s · Enter opens a window attached to it\n", host, pane)
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
