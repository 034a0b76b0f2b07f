package broker

import (
	"context"
	"net/http"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/apilane"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/tmux"
)

// apiClient talks to an agent's server on this host directly: no proxy
// from the environment stands between tma and the pane's own agent.
var apiClient = &http.Client{Transport: &http.Transport{Proxy: nil}}

// apiEndpoint is the server the pane's agent answers on: the one its
// plugin stamped (@agent_api_endpoint), else [api.<agent>] api_base; from
// says which.
func (b *Broker) apiEndpoint(f *fleet.Fleet, pane, agent string) (base, from string) {
	if p := f.Pane(pane); p != nil && p.Opts[hook.EndpointOption] != "" {
		return p.Opts[hook.EndpointOption], "stamped by the plugin"
	}
	if base := b.Config.APIBase(agent); base != "" {
		return base, "[api." + agent + "] api_base"
	}
	return "", ""
}

// requestOption is the pane option that names the request an arm answers.
func requestOption(arm act.APIArm) string {
	if arm.Op == act.OpQuestionReject {
		return hook.QuestionOption
	}
	return hook.RequestOption
}

// apiTarget is the answer the action's [api] arm would post on pane: when
// the agent has an arm, the pane names a server and carries the request's
// own id. ok is false otherwise (the keys go out, as without the arm);
// why says what was missing, for a dry run.
func (b *Broker) apiTarget(a *act.Action, f *fleet.Fleet, pane, agent string) (ans apilane.Answer, from string, ok bool, why string) {
	arm, has := a.API[agent]
	if !has {
		return ans, "", false, ""
	}
	base, from := b.apiEndpoint(f, pane, agent)
	if base == "" {
		return ans, "", false, "no " + agent + " server for the api arm (the plugin stamps " + hook.EndpointOption + " when " + agent + " listens on a port; or set [api." + agent + "] api_base)"
	}
	id := ""
	if p := f.Pane(pane); p != nil {
		id = p.Opts[requestOption(arm)]
	}
	if id == "" {
		return ans, "", false, "the pane names no pending request for the api arm (" + requestOption(arm) + ")"
	}
	return apilane.Answer{Base: base, Op: arm.Op, Reply: arm.Reply, ID: id}, from, true, ""
}

// answer posts ans and reads the outcome: replied on a 2xx, vanished with
// request-gone when the server no longer holds the request, error when it
// cannot be reached or says anything else. Either of the first two unsets
// the pane's id (guarded on it still being that id) with the release.
func (b *Broker) answer(a *act.Action, pane string, ans apilane.Answer, arm act.APIArm) (act.Result, string, []string) {
	res := apilane.Do(context.Background(), apiClient, ans)
	var r act.Result
	switch res.Outcome {
	case apilane.Replied:
		r = act.NewResult(a.Name, pane, act.OutcomeReplied, "")
	case apilane.Gone:
		r = act.NewResult(a.Name, pane, act.OutcomeVanished, act.ReasonRequestGone)
	default:
		r = act.NewResult(a.Name, pane, act.OutcomeError, "")
		r.Unsent = res.Unsent
		return r, res.Why, nil
	}
	var extra []string
	opt := requestOption(arm)
	if l, err := (tmux.Write{Pane: pane, Guard: "#{==:#{" + opt + "}," + ans.ID + "}", Sets: []tmux.Set{{Name: opt, Unset: true}}}).Line(); err == nil {
		extra = append(extra, l)
	}
	if r.Outcome == act.OutcomeReplied {
		return r, "", extra
	}
	return r, res.Why, extra
}
