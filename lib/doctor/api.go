package doctor

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/apilane"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/record"
)

// apiProbeTimeout bounds doctor's look at a pane's agent server.
const apiProbeTimeout = 500 * time.Millisecond

// APIProblem is doctor's api: line for a pane: a pending permission of an
// agent with an HTTP answer lane whose server is not there to answer it
// ("" when there is no such problem). It asks that server (bounded by
// apiProbeTimeout), so the command hands it to Diagnose as Facts.APIProblem.
func APIProblem(cfg *config.Config, p *record.Pane, prior record.Prior) string {
	if !slices.Contains(act.APIAgents, p.Agent) {
		return ""
	}
	id := p.Opts[hook.RequestOption]
	if id == "" && !(prior.State == "blocked" && prior.Detail == "permission") {
		return ""
	}
	pending := "a pending permission"
	if id != "" {
		pending += " (" + id + ")"
	}
	base := p.Opts[hook.EndpointOption]
	if base == "" {
		base = cfg.APIBase(p.Agent)
	}
	if base == "" {
		return pending + " and no server endpoint: approve and deny send keys (" + p.Agent + " serves its API only with --port or --hostname; or set [api." + p.Agent + "] api_base)"
	}
	if err := apilane.Probe(context.Background(), &http.Client{Transport: &http.Transport{Proxy: nil}}, base, apiProbeTimeout); err != nil {
		return pending + ", and " + base + " does not answer (" + err.Error() + "): approve and deny fail until it does"
	}
	return ""
}
