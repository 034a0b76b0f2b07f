package doctor

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/apilane"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/record"
)

// apiProbeTimeout bounds doctor's look at a pane's agent server.
const apiProbeTimeout = 500 * time.Millisecond

// APIProblem is doctor's api: line for a pane: a pending permission or
// question of an agent with an HTTP answer lane whose server is not there
// to answer it ("" when there is no such problem). A question counts
// because dismiss declines it over the same lane. It asks that server
// (bounded by apiProbeTimeout), so the command hands it to Diagnose as
// Facts.APIProblem.
func APIProblem(cfg *config.Config, p *record.Pane, prior record.Prior) string {
	if !slices.Contains(act.APIAgents, p.Agent) {
		return ""
	}
	pending, actions := pendingRequest(p, prior)
	if pending == "" {
		return ""
	}
	base := p.Opts[hook.EndpointOption]
	if base == "" {
		base = cfg.APIBase(p.Agent)
	}
	if base == "" {
		return pending + " and no server endpoint: " + actions + " " + verb(actions, "send") + " keys (" + p.Agent + " serves its API only with --port or --hostname; or set [api." + p.Agent + "] api_base)"
	}
	if err := apilane.Probe(context.Background(), &http.Client{Transport: &http.Transport{Proxy: nil}}, base, apiProbeTimeout); err != nil {
		return pending + ", and " + base + " does not answer (" + err.Error() + "): " + actions + " " + verb(actions, "fail") + " until it does"
	}
	return ""
}

// pendingRequest names what the pane waits on that the API lane would
// answer, and the actions that use the lane for it: the request id the
// hook stamped, else the blocked detail the pane's last verdict carried.
func pendingRequest(p *record.Pane, prior record.Prior) (pending, actions string) {
	perm, question := p.Opts[hook.RequestOption], p.Opts[hook.QuestionOption]
	switch {
	case perm != "":
		return "a pending permission (" + perm + ")", "approve and deny"
	case question != "":
		return "a pending question (" + question + ")", "dismiss"
	case prior.State == "blocked" && prior.Detail == "permission":
		return "a pending permission", "approve and deny"
	case prior.State == "blocked" && prior.Detail == "question":
		return "a pending question", "dismiss"
	}
	return "", ""
}

// verb agrees with the actions named: "approve and deny send", "dismiss sends".
func verb(actions, v string) string {
	if strings.Contains(actions, " and ") {
		return v
	}
	return v + "s"
}
