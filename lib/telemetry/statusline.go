package telemetry

import "math"

// statuslineT is the part of a statusLine payload tma reads. Claude Code
// writes it (2.1.197, captured in testdata/); Cursor documents the same
// shape for its CLI ("aligned with Claude Code's status line"), unproven.
type statuslineT struct {
	Model *struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost *struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow *struct {
		ContextWindowSize *float64 `json:"context_window_size"`
		UsedPercentage    *float64 `json:"used_percentage"`
		// CurrentUsage is the last request's usage: what the window holds
		// now. (total_input_tokens is not read: versions before 2.1.132
		// summed it over the session.)
		CurrentUsage *struct {
			InputTokens              *float64 `json:"input_tokens"`
			CacheCreationInputTokens *float64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     *float64 `json:"cache_read_input_tokens"`
		} `json:"current_usage"`
	} `json:"context_window"`
	// RateLimits comes only with a claude.ai subscription login: Claude
	// Code reads the anthropic-ratelimit-unified-* response headers for
	// no other account (testdata/claude-statusline-oauth-2.json has it,
	// claude-statusline-apikey-quota.json, after the same headers, not).
	RateLimits map[string]*struct {
		UsedPercentage *float64 `json:"used_percentage"`
		ResetsAt       *float64 `json:"resets_at"` // epoch seconds
	} `json:"rate_limits"`
}

// claudeWindows names the rate-limit windows as @agent_quota_window does,
// in the order a tie is broken (the window that resets first).
var claudeWindows = [][2]string{{"five_hour", "5h"}, {"seven_day", "7d"}}

func statusline(format string, payload []byte) (Reading, error) {
	var p statuslineT
	if err := decode(format, payload, &p); err != nil {
		return Reading{}, err
	}
	var r Reading
	if m := p.Model; m != nil {
		r.Model = cleanModel(m.ID)
		if r.Model == "" {
			r.Model = cleanModel(m.DisplayName)
		}
	}
	if c := p.Cost; c != nil && c.TotalCostUSD != nil && *c.TotalCostUSD >= 0 && !math.IsInf(*c.TotalCostUSD, 0) {
		v := *c.TotalCostUSD
		r.CostUSD = &v
	}
	if w := p.ContextWindow; w != nil {
		size := whole(w.ContextWindowSize, MaxTokens)
		if u := w.CurrentUsage; u != nil && u.InputTokens != nil {
			n := *u.InputTokens
			for _, x := range []*float64{u.CacheCreationInputTokens, u.CacheReadInputTokens} {
				if x != nil {
					n += *x
				}
			}
			r.Tokens = level(n)
		}
		// The agent's own percent wins; without it the level over the
		// window the payload names. No window, no gauge: never a guess.
		r.ContextPct = pct(w.UsedPercentage)
		if r.ContextPct == nil && r.Tokens != nil {
			r.ContextPct = ratio(*r.Tokens, size)
		}
	}
	for _, kw := range claudeWindows {
		l := p.RateLimits[kw[0]]
		if l == nil {
			continue
		}
		q := pct(l.UsedPercentage)
		if q == nil || r.Quota != nil && r.Quota.Pct >= *q {
			continue
		}
		r.Quota = &Quota{Pct: *q, Window: kw[1]}
		if at := whole(l.ResetsAt, MaxEpochMS/1000); at > 0 {
			r.Quota.ResetsAtMS = at * 1000
		}
	}
	return r, nil
}
