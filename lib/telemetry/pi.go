package telemetry

// piUsageT is pi's ctx.getContextUsage(), which tma's pi extension puts
// under "context" in its agent_settled payload (shell/plugins/pi.js;
// captured by the lab from pi 0.73.1: testdata/pi-agent-settled.jsonl).
type piUsageT struct {
	Tokens        *float64 `json:"tokens"`
	ContextWindow *float64 `json:"contextWindow"`
	Percent       *float64 `json:"percent"` // 0-100, fractional
}

type piPayloadT struct {
	Context *piUsageT `json:"context"`
	Model   string    `json:"model"` // ctx.model.id (testdata/pi-agent-settled-model.jsonl)
	AtMS    *float64  `json:"tma_at_ms"`
}

// piContext reads the extension's payload, or the bare usage object.
func piContext(payload []byte) (Reading, error) {
	var p piPayloadT
	if err := decode(PiContext, payload, &p); err != nil {
		return Reading{}, err
	}
	u := p.Context
	if u == nil {
		var bare piUsageT
		if err := decode(PiContext, payload, &bare); err != nil {
			return Reading{}, err
		}
		if bare.Tokens == nil && bare.Percent == nil {
			return Reading{}, nil
		}
		u = &bare
	}
	var r Reading
	r.AtMS = whole(p.AtMS, MaxEpochMS)
	r.Model = cleanModel(p.Model)
	if u.Tokens != nil {
		r.Tokens = level(*u.Tokens)
	}
	r.ContextPct = pct(u.Percent)
	if r.ContextPct == nil && r.Tokens != nil && u.ContextWindow != nil {
		r.ContextPct = ratio(*r.Tokens, whole(u.ContextWindow, MaxTokens))
	}
	return r, nil
}
