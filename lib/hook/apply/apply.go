package apply

import (
	"context"
	"strings"

	libhook "github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/tmux"
)

// Result is what applying one event did.
type Result struct {
	Target string // the pane the event landed on
	Wrote  bool   // the stamp reached tmux
	// Lost: the stamp carried a reply-lane request but lost the guard to
	// newer evidence, so the request id is not on the pane.
	Lost   bool
	Why    string // the plan's reason
	Err    error  // tmux could not be run or reached
	Stderr string // what tmux said about a line it refused
}

// Notify rides the stamp's one tmux call ([notify] from_event): Arm adds
// its lines after the stamp's, Fire reads what the call printed. Either
// may be nil.
type Notify struct {
	Arm  func(lines []string, pane string) []string
	Fire func(out string)
}

// arm adds the arm lines after the plan's, under the plan's own guard: a
// blind plan that gives way to the listed path arms nothing, so the episode
// the event ends is never fired (and marked) before the event's own stamp.
func (n Notify) arm(plan *libhook.Plan, lines []string, pane string) []string {
	if n.Arm == nil {
		return lines
	}
	armed := n.Arm(lines, pane)
	if len(armed) <= len(lines) {
		return armed
	}
	return append(lines[:len(lines):len(lines)], plan.Within(armed[len(lines):])...)
}

func (n Notify) fire(out string) {
	if n.Fire != nil {
		n.Fire(out)
	}
}

// Run applies ev: the blind plan in one spawn; when that plan needs the
// pane list, or the pane gives way to the session's registered one, the
// listed path. chain returns the event's parent process chain, nearest
// first; it is asked only for a start event, whose agent pid is the
// nearest ancestor the manifest names inside the pane's tree.
func Run(ctx context.Context, tc *tmux.Client, ev libhook.Event, chain func() []*proc.Proc, n Notify) *Result {
	res := &Result{Target: ev.Pane}
	plan, err := libhook.Build(ev, nil)
	if err != nil {
		res.Why = err.Error()
		return res
	}
	if !plan.NeedPanes {
		out, errText, err := tc.Batch(ctx, n.arm(plan, withReadBack(plan.Lines, ev.Request, ev.Pane), ev.Pane))
		if err != nil {
			res.Err = err
			return res
		}
		res.Stderr = strings.TrimSpace(errText)
		n.fire(out)
		if !strings.Contains(out, libhook.Elsewhere) {
			res.Why = plan.Why
			res.Wrote = len(plan.Lines) > 0 && res.Stderr == ""
			res.Lost = res.Wrote && ev.Request != "" && !strings.Contains(out, ev.Request)
			return res
		}
	}
	panes, err := ListPanes(ctx, tc)
	if err != nil {
		res.Err = err
		return res
	}
	if m := ev.Agent.MapEvent(ev.Name, ev.Payload.Raw); m != nil && m.Claim.Lifecycle == "start" {
		ev.AgentPID = AgentPID(ev.Agent.MatchesProcess, panes, ev.Pane, chain())
	}
	if plan, err = libhook.Build(ev, panes); err != nil {
		res.Why = err.Error()
		return res
	}
	res.Why, res.Target = plan.Why, plan.Pane
	if len(plan.Lines) == 0 {
		return res
	}
	out, errText, err := tc.Batch(ctx, n.arm(plan, withReadBack(plan.Lines, ev.Request, plan.Pane), plan.Pane))
	if err != nil {
		res.Err = err
		return res
	}
	n.fire(out)
	if res.Stderr = strings.TrimSpace(errText); res.Stderr == "" {
		res.Wrote = true
		res.Lost = ev.Request != "" && !strings.Contains(out, ev.Request)
	}
	return res
}

// withReadBack adds, for a stamp that carries a reply-lane request, a read
// of the request id in the same tmux call: a stamp that lost the guard to
// newer evidence wrote nothing, and a hold nobody can find on the pane
// would only sleep.
func withReadBack(lines []string, request, pane string) []string {
	if request == "" || len(lines) == 0 || !tmux.ValidPaneID(pane) {
		return lines
	}
	return append(lines[:len(lines):len(lines)], "display -p -t "+pane+" '#{"+libhook.RequestOption+"}'")
}

const sep = "\x1f"

// ListPanes reads what the listed path needs of every pane, in one call.
func ListPanes(ctx context.Context, c *tmux.Client) ([]libhook.Pane, error) {
	out, _, err := c.Run(ctx, "", "list-panes", "-a", "-F",
		"#{pane_id}"+sep+"#{@agent_session}"+sep+"#{@agent_name}"+sep+"#{@agent_subagents}"+sep+"#{@agent_pid}"+sep+"#{pane_pid}")
	if err != nil {
		return nil, err
	}
	out = strings.ReplaceAll(out, `\037`, sep)
	var panes []libhook.Pane
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if len(f) != 6 || !tmux.ValidPaneID(f[0]) {
			continue
		}
		panes = append(panes, libhook.Pane{ID: f[0], Session: f[1], Name: f[2], Subagents: f[3], PID: atoi(f[4]), PanePID: atoi(f[5])})
	}
	return panes, nil
}

// AgentPID finds the agent process above a hook: the nearest process of
// its chain the manifest names, inside the pane's tree. 0 when there is
// none (a container), or the chain never reaches the pane (a daemon or
// another terminal ran the hook).
func AgentPID(match func(string) bool, panes []libhook.Pane, pane string, chain []*proc.Proc) int {
	root := 0
	for _, p := range panes {
		if p.ID == pane {
			root = p.PanePID
		}
	}
	found := 0
	for _, p := range chain {
		if found == 0 && match(p.Comm) {
			found = p.PID
		}
		if p.PID == root {
			return found
		}
	}
	return 0
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}
