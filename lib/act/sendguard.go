package act

import (
	"fmt"
	"strconv"
	"strings"
)

// Tuple is what a fire read about its pane under the lock, as the pane
// options hold it once that read's cycle committed: the one prompt (or
// turn) its keys are meant for.
type Tuple struct {
	State   string
	Detail  string
	Since   int64  // @agent_since: write-once per state run
	Request string // @agent_permission_request: a hook's id for the prompt
}

// Option names the send guard compares.
const (
	stateOption   = "@agent_state"
	detailOption  = "@agent_detail"
	sinceOption   = "@agent_since"
	requestOption = "@agent_permission_request"
)

// SendGuard is the tmux condition a fire's keys go out under, checked in
// the same command that sends them (if-shell -F expands it once,
// server-side): the pane still holds this fire's lock and carries the
// tuple the read under the lock saw. A prompt that replaced the one read
// (a question where a permission was, a new request id, a state run that
// ended) fails it, and nothing is sent: the read and the send are one
// server-side step, with no window between them.
func SendGuard(t Tuple, l Lock) string {
	terms := []string{
		eq(LockOption, l.String()),
		eq(stateOption, t.State),
		eq(detailOption, t.Detail),
		eq(sinceOption, sinceText(t.Since)),
		eq(requestOption, t.Request),
	}
	g := terms[len(terms)-1]
	for i := len(terms) - 2; i >= 0; i-- {
		g = "#{&&:" + terms[i] + "," + g + "}"
	}
	return g
}

// SendGuardRead is the format a fire prints right after a guarded send
// that did not go out: what the pane holds now, for the refusal's why.
const SendGuardRead = "#{" + stateOption + "}|#{" + detailOption + "}"

// MovedOn says what a pane that failed the send guard holds now, read
// with SendGuardRead ("blocked/question", "idle", "no agent state").
func MovedOn(read string) string {
	state, detail, _ := strings.Cut(strings.TrimSpace(read), "|")
	switch {
	case state == "":
		return "no agent state"
	case detail != "":
		return state + "/" + detail
	}
	return state
}

func sinceText(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return strconv.FormatInt(ms, 10)
}

// eq compares a pane option with a literal inside a format: the literal's
// #, comma and closing brace are escaped, so a value carrying them compares
// as itself.
func eq(option, literal string) string {
	return fmt.Sprintf("#{==:#{%s},%s}", option, formatLiteral(literal))
}

func formatLiteral(s string) string {
	r := strings.NewReplacer("#", "##", ",", "#,", "}", "#}")
	return r.Replace(s)
}
