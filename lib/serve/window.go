package serve

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tmaproject/tma/lib/device"
)

// The host-clamped transcript budgets: a window frame is at most
// MaxWindowFrame bytes and asks for at most MaxWindowLast events.
const (
	MaxWindowFrame = 32 << 10
	MaxWindowLast  = 1000
	defaultLast    = 20
)

// WindowRequest is one transcript page asked for over serve.
type WindowRequest struct {
	Pane    string
	Last    int
	Before  string
	Event   string
	Headers bool
}

// Refusal is the transcript reader's typed "nothing to show, and why".
type Refusal struct {
	Code    string
	Message string
}

// windowCodes maps the reader's refusals onto the protocol's error codes;
// the message keeps the reader's own code.
var windowCodes = map[string]string{
	"no-transcript":     CodeNotFound,
	"cursor-invalid":    CodeCursorInvalid,
	"unsupported-store": CodeUnsupported,
	"store-incomplete":  CodeUnsupported,
}

// window answers a transcript page within the frame budget: a page whose
// frame would be too large is read again with its bodies left out, then
// with half the events, until it fits.
func (s *session) window(ctx context.Context, id string, q *request) {
	if !paneRE.MatchString(q.Pane) || q.Last < 0 || q.Last > MaxWindowLast {
		s.errorFrame(id, CodeBadRequest, fmt.Sprintf("window needs a pane id (%%N) and a last of 1 to %d", MaxWindowLast))
		return
	}
	w := WindowRequest{Pane: q.Pane, Last: q.Last, Before: q.Before, Event: q.Event, Headers: q.Headers}
	if w.Last == 0 {
		w.Last = defaultLast
	}
	// A transcript's bodies are screen content: a device that may not
	// answer gets the headers only (who said what, when), never the words.
	if !s.device.Has(device.ScopeAnswer) {
		w.Headers = true
	}
	for {
		doc, ref, err := s.c.Window(ctx, w)
		if err != nil {
			s.errorFrame(id, CodeInternal, err.Error())
			return
		}
		if ref != nil {
			code, ok := windowCodes[ref.Code]
			if !ok {
				code = CodeInternal
			}
			s.errorFrame(id, code, ref.Code+": "+ref.Message)
			return
		}
		b, err := json.Marshal(fields("schema", Schema, "id", id, "t", "window", "document", json.RawMessage(doc)))
		if err != nil {
			s.errorFrame(id, CodeInternal, err.Error())
			return
		}
		if len(b) < MaxWindowFrame {
			s.mu.Lock()
			_, _ = s.out.Write(append(b, '\n'))
			s.mu.Unlock()
			return
		}
		switch {
		case !w.Headers && w.Event == "":
			w.Headers = true
		case w.Last > 1:
			w.Last /= 2
		default:
			s.errorFrame(id, CodeInternal, fmt.Sprintf("one event's header is over the %d-byte frame budget", MaxWindowFrame))
			return
		}
	}
}
