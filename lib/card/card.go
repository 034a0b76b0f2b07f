package card

import (
	"strings"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/screen"
)

// The kinds: what the agent waits on.
const (
	KindPermission    = "permission"
	KindQuestion      = "question"
	KindInformational = "informational"
	KindNone          = "none"
)

// The lanes: where the content came from.
const (
	LaneHook   = "hook"
	LaneAPI    = "api"
	LaneScreen = "screen"
)

// The extraction confidences.
const (
	Exact   = "exact"   // read from a structured stamp, as the agent sent it
	Wrapped = "wrapped" // read off the screen and reflowed: the words are the dialog's, the line breaks are a guess
	Failed  = "failed"  // the pane is blocked but nothing usable was found
)

// Bounds on what a card carries, in bytes (an option's label and
// description each; the question; the text). A dialog is a few lines; a
// screen full of output is not a dialog, and a card is one small frame.
const (
	MaxOptions = 12
	maxLabel   = 200
	maxText    = 2048
)

// Pane is what tma already knows of one pane: its resolved row's state and
// the options the hook or the agent's plugin stamped.
type Pane struct {
	Agent, State, Detail string
	// PermissionRequest and QuestionRequest are the request ids
	// (@agent_permission_request, @agent_question_request): claude's
	// reply lane's 16 hex digits, or OpenCode's per_…/que_… ids.
	PermissionRequest, QuestionRequest string
	// PendingTool and PendingSummary are the blocked claim's tool and
	// its command or path (@agent_pending_tool, @agent_pending_summary).
	PendingTool, PendingSummary string
}

// Option is one choice of a dialog, as it reads.
type Option struct {
	Label       string  `json:"label"`
	Description *string `json:"description"`
	// FreeText marks the choice that opens the agent's own text field
	// (Claude's and pi's "Type something.", OpenCode's "Type your own
	// answer"): picking it answers nothing until words are typed there.
	FreeText bool `json:"free_text,omitempty"`
}

// Card is the answer. The pointer fields are null when unknown.
type Card struct {
	Kind       string   `json:"kind"`
	Lane       *string  `json:"lane"`
	Confidence *string  `json:"confidence"`
	Tool       *string  `json:"tool"`
	Summary    *string  `json:"summary"`
	Request    *string  `json:"request"`
	Question   *string  `json:"question"`
	Options    []Option `json:"options"`
	Text       *string  `json:"text"`
}

// Capture is a pane's screen and the manifest that reads it.
type Capture struct {
	Screen screen.Screen
	Agent  *manifest.Agent
}

// KindOf is the card kind of a row: none unless blocked; a blocked
// permission or question is that; any other blocker (setup, trust, a plan,
// a rate limit) is informational: there is something to read and choose,
// but it is not a tool's approval nor the agent's question.
func KindOf(state, detail string) string {
	if state != manifest.StateBlocked {
		return KindNone
	}
	switch detail {
	case "permission":
		return KindPermission
	case "question":
		return KindQuestion
	}
	return KindInformational
}

// Build makes the card. Stamps carry the content when the claim named a
// tool (a permission with @agent_pending_tool): that is exact, and its lane
// is api when the request id is the agent server's own (OpenCode's per_…,
// the plugin's reading of the server's event), else hook. Otherwise the
// content is read off c, when given: the dialog around the line the
// winning blocked rule matched. A question's stamp is only its id, so a
// question's text always comes from the screen.
func Build(p Pane, c *Capture) Card {
	k := KindOf(p.State, p.Detail)
	cd := Card{Kind: k, Options: []Option{}}
	if k == KindNone {
		return cd
	}
	switch k {
	case KindPermission:
		cd.Request = nonEmpty(p.PermissionRequest)
	case KindQuestion:
		cd.Request = nonEmpty(p.QuestionRequest)
	}
	if k == KindPermission && p.PendingTool != "" {
		lane := LaneHook
		if strings.HasPrefix(p.PermissionRequest, "per_") {
			lane = LaneAPI
		}
		cd.Lane, cd.Confidence = str(lane), str(Exact)
		cd.Tool, cd.Summary = str(clip(p.PendingTool, maxLabel)), nonEmpty(clip(p.PendingSummary, maxLabel))
		return cd
	}
	cd.Lane, cd.Confidence = str(LaneScreen), str(Failed)
	if c == nil || c.Agent == nil {
		return cd
	}
	best, skip := manifest.Decide(c.Agent.Evaluate(c.Screen))
	if skip || best == nil || best.Rule.State != manifest.StateBlocked || best.Excerpt == "" {
		return cd
	}
	d, ok := Extract(c.Screen.Lines(), best.Excerpt)
	if !ok {
		return cd
	}
	cd.Confidence = str(Wrapped)
	cd.Question, cd.Text, cd.Options = d.Question, d.Text, d.Options
	return cd
}

func str(s string) *string { return &s }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// clip cuts s to at most n bytes on a rune boundary, control bytes gone
// (newlines too: a label is one line).
func clip(s string, n int) string { return cut(s, n, false) }

// clipText is clip keeping the newlines between paragraphs.
func clipText(s string, n int) string { return cut(s, n, true) }

func cut(s string, n int, lines bool) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' && lines {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}
