package remote

import (
	"context"

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
