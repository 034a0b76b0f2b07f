package act

import (
	"fmt"
	"slices"

	"github.com/tmaproject/tma/lib/manifest"
)

// AnswersPrompt reports whether a fire of the action can answer an agent's
// prompt other than by declining it. That is a keys or text action the gate
// lets onto a blocked pane (its when names blocked or no state at all, or
// force lifts the when gate), or an exec action whose when names blocked
// (the bundled answer). A decline (Declines) answers nothing; an exec action
// not gated on blocked runs a command beside the pane.
func (a *Action) AnswersPrompt(force bool) bool {
	onBlocked := slices.Contains(a.When.State, manifest.StateBlocked)
	if a.Kind == KindExec {
		return onBlocked
	}
	if !onBlocked && len(a.When.State) > 0 && !force {
		return false
	}
	return !a.Declines()
}

// Declines reports whether every arm of a keys action says no: each key
// sequence is Escape alone (every dialog's own "no" key, docs/actions.md)
// or Ctrl+C alone (a cancel, which no agent reads as a yes: Copilot's
// interrupt),
// each [hook] arm replies deny and each [api] arm rejects. deny, dismiss and
// interrupt are declines.
func (a *Action) Declines() bool {
	if a.Kind != KindKeys || len(a.Keys) == 0 {
		return false
	}
	for _, seq := range a.Keys {
		if len(seq) != 1 || (seq[0] != "Escape" && seq[0] != "C-c") {
			return false
		}
	}
	for _, h := range a.Hook {
		if h.Reply != "deny" {
			return false
		}
	}
	for _, p := range a.API {
		if p.Op != OpQuestionReject && !(p.Op == OpPermissionReply && p.Reply == "reject") {
			return false
		}
	}
	return true
}

// FanOutRefusal is why --all refuses the action ("" when it may fan out):
// tma offers no batch approve. An answer to a prompt is a decision made one
// prompt at a time, so an action that can answer one fires on one pane;
// declines (deny, dismiss, interrupt) and actions that never reach a prompt
// (steer on idle panes, an exec action) keep --all.
func FanOutRefusal(a *Action, force bool) string {
	if !a.AnswersPrompt(force) {
		return ""
	}
	if force && !slices.Contains(a.When.State, manifest.StateBlocked) && len(a.When.State) > 0 {
		return fmt.Sprintf("--all with --force: %s would reach panes blocked at a prompt, and a prompt is answered one prompt at a time (tma has no batch approve); drop --force, or name one pane with --pane", a.Name)
	}
	return fmt.Sprintf("%s answers a prompt, and a prompt is answered one prompt at a time: --all never approves or answers in bulk (tma has no batch approve); name one pane with --pane, or a selector that matches one", a.Name)
}
