package notify

import (
	"context"
	"strconv"

	"github.com/tmaproject/tma/lib/config"
)

// Completion is a detached action's completion payload (I-16): its own
// schema-1 contract beside the state payload. It has no state: a
// completion reports what the action's child did, and its pane may be gone.
type Completion struct {
	Action  string
	Pane    string
	Agent   string
	Outcome string // exited, timeout or error
	// ExitCode is the child's own code; nil when it did not exit by itself
	// (killed at detach_timeout_ms, or never started).
	ExitCode          *int
	Locator           string
	LockReleaseFailed bool
}

// CompletionSchema is the completion payload's schema.
const CompletionSchema = 1

// CompletionTrigger names a completion in the failure record doctor reads.
const CompletionTrigger = "completion"

// TestTriggers are every trigger a failure record can name, and so every
// one `tma debug notify-test --trigger` takes: the four of a state fire and
// a detached action's completion.
var TestTriggers = []string{Blocked, Done, ContextHigh, Stall, CompletionTrigger}

// TestCommand is the command that re-runs what a trigger resolves to and
// shows its stderr: doctor's hint for a failed fire of that trigger.
func TestCommand(trigger string) string { return "tma debug notify-test --trigger " + trigger }

// SampleCompletion is the representative completion notify-test sends: a
// detached action's child that exited 0.
func SampleCompletion() *Completion {
	code := 0
	return &Completion{Action: "notify-test", Pane: "%0", Agent: "claude", Outcome: "exited", ExitCode: &code, Locator: "main:1.0"}
}

func (c *Completion) pairs() []kv {
	var code any
	if c.ExitCode != nil {
		code = *c.ExitCode
	}
	return []kv{{"schema", CompletionSchema}, {"action", c.Action}, {"pane", c.Pane}, {"agent", nullable(c.Agent)},
		{"outcome", c.Outcome}, {"exit_code", code}, {"locator", nullable(c.Locator)}, {"lock_release_failed", c.LockReleaseFailed}}
}

// JSON is the payload a command reads on stdin.
func (c *Completion) JSON() []byte { return encode(c.pairs()) }

// LogLine is the payload with at right after schema: the notify log line,
// told from a state line by action and outcome where that has state.
func (c *Completion) LogLine(atMS int64) []byte {
	p := c.pairs()
	return append(encode(append([]kv{p[0], {"at", atMS}}, p[1:]...)), '\n')
}

// Env is the payload as TMA_* variables: TMA_EXIT_CODE and TMA_LOCATOR
// only when they have a value (so ${TMA_EXIT_CODE:-} tells a deadline kill
// from a child that exited); lock_release_failed has none.
func (c *Completion) Env() []string {
	env := []string{"TMA_ACTION=" + c.Action, "TMA_PANE=" + c.Pane, "TMA_AGENT=" + c.Agent, "TMA_OUTCOME=" + c.Outcome}
	if c.ExitCode != nil {
		env = append(env, "TMA_EXIT_CODE="+strconv.Itoa(*c.ExitCode))
	}
	if c.Locator != "" {
		env = append(env, "TMA_LOCATOR="+c.Locator)
	}
	return env
}

// CompletionEnvNames are every variable Env may set.
var CompletionEnvNames = []string{"TMA_ACTION", "TMA_PANE", "TMA_AGENT", "TMA_OUTCOME", "TMA_EXIT_CODE", "TMA_LOCATOR"}

// CompletionMessage is the status-line text for a completion.
func CompletionMessage(c *Completion) string {
	m := "tma: " + c.Action + " on " + c.Pane
	if c.Locator != "" {
		m += " (" + c.Locator + ")"
	}
	m += ": " + c.Outcome
	if c.ExitCode != nil && c.Outcome == "exited" {
		m += " " + strconv.Itoa(*c.ExitCode)
	}
	return m
}

// FireCompletion delivers a completion on the same sinks a state fire
// uses, in the same order: the opted-in bell and OSC bytes on the pane's
// tty (tty "" when the pane is gone), the message on every attached
// client, the [notify] command (the global one; run here and waited for,
// since the caller is already a detached supervisor) with its outcome in the failure record
// doctor reads, and the log line. Mute does not apply: the completion was
// asked for.
func FireCompletion(ctx context.Context, s Settings, ex Execer, c *Completion, clients []string, tty string, nowMS int64) Outcome {
	var o Outcome
	n := s.Config.Notify
	// The bytes before the message, which would freeze the clients'
	// terminals and drop them (FireAll).
	if tty != "" {
		if b := TTYBytes(n.Bell, n.OSC, n.OSC777, c.Action, c.Outcome); b != "" {
			if err := WriteTTY(tty, b); err != nil {
				o.Errors = append(o.Errors, err)
			} else {
				o.TTY = true
			}
		}
	}
	if lines := DisplayLines(clients, CompletionMessage(c)); len(lines) > 0 && ex != nil {
		if _, err := ex.Exec(ctx, lines); err != nil {
			o.Errors = append(o.Errors, err)
		} else {
			o.Shown = len(lines)
		}
	}
	if cmd := s.Config.NotifyCommand("", s.Env); cmd != "" {
		cmd = config.ExpandHome(cmd, s.Home)
		r := Run(cmd, c.JSON(), c.Env(), Timeout(s.Getenv))
		_ = Record(s.Getenv, CompletionTrigger, cmd, r, nowMS)
		o.Command = cmd
	}
	_ = AppendLog(s.Config.NotifyLog(s.Home), c.LogLine(nowMS))
	return o
}
