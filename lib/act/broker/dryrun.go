package broker

import (
	"fmt"
	"strconv"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/record"
)

// dryRun reports what a fire would do and fires nothing: no lock; the
// binders are read against this cycle. It exits with the code the fire would start from (0 when it
// would fire; the worst target's under --all).
func (b *Broker) dryRun(a *act.Action, f *fleet.Fleet, shots []*shot) int {
	var results []act.Result
	verdict := func(s *shot) (act.Result, string) {
		switch {
		case s.result != nil:
			why := s.verdict.Why
			if !s.exists {
				why = "no pane " + s.pane + " on " + f.Cycle.Server
			}
			return *s.result, why
		case s.locked:
			l, _ := act.ParseLock(s.t.Lock)
			return act.NewResult(a.Name, s.pane, act.OutcomeRefused, act.ReasonLocked),
				fmt.Sprintf("%s holds it for %d ms more", l.Name, max(l.ExpiryMS-f.Cycle.NowMS, 0))
		}
		// The binders, on this cycle's read: the refusal the fire would
		// meet under its lock unless the pane moves meanwhile.
		reqID := ""
		if p := f.Pane(s.pane); p != nil {
			reqID = p.Opts[lane.Option]
		}
		if v := act.Bind(b.Req.ExpectEpisodeMS, b.Req.ExpectRequest, s.t, reqID); !v.Fireable() {
			return act.NewResult(a.Name, s.pane, act.OutcomeRefused, v.Reason), v.Why
		}
		return act.NewResult(a.Name, s.pane, act.OutcomeSent, ""), ""
	}
	w := b.Stdout
	if b.Req.All {
		fmt.Fprintf(w, "targets: %d\n", len(shots))
		for _, s := range shots {
			r, _ := verdict(s)
			v := "would fire"
			if act.Rank(r) != 0 {
				v = outcomeText(r)
			}
			fmt.Fprintf(w, "%-8s %-12s %s\n", s.pane, s.t.Agent, v)
			results = append(results, r)
		}
		return act.Worst(results)
	}
	s := shots[0]
	r, why := verdict(s)
	gate := "fireable"
	if act.Rank(r) != 0 {
		gate = describe(r, why)
	} else if b.Req.Force {
		gate = "fireable (--force: the when gate is skipped)"
	}
	text := ""
	if b.Req.Text != nil {
		text = *b.Req.Text
	}
	fmt.Fprintf(w, "action:  %s\n", a.Name)
	fmt.Fprintf(w, "pane:    %s\n", s.pane)
	fmt.Fprintf(w, "agent:   %s\n", dash(s.t.Agent))
	fmt.Fprintf(w, "gate:    %s\n", gate)
	ans, from, viaAPI, noAPI := b.apiTarget(a, f, s.pane, s.t.Agent)
	if viaAPI && a.Arm(s.t.Agent) {
		fmt.Fprintf(w, "effect:  api: %s (%s server, %s; no keys)\n", ans.Describe(), s.t.Agent, from)
	} else if id, arm, held := b.heldRequest(a, f, s.pane, s.t.Agent); held && a.Arm(s.t.Agent) {
		fmt.Fprintf(w, "effect:  hook: reply %s to request %s, held by claude's PermissionRequest hook (no keys)\n", arm.Reply, id)
	} else if s.t.Agent != "" && a.Arm(s.t.Agent) || a.Kind == act.KindExec {
		effect := act.Effect(a, s.t.Agent, text)
		if noAPI != "" {
			effect += " (" + noAPI + ")"
		}
		fmt.Fprintf(w, "effect:  %s\n", effect)
	} else {
		fmt.Fprintf(w, "effect:  none (no %s sequence for %s)\n", a.Kind, dash(s.t.Agent))
	}
	if s.exists {
		fmt.Fprintln(w, "context:")
		ctx := b.context(a, f, s.pane, s.t)
		ages := b.ages(f, s.pane)
		width := 0
		for _, k := range contextVars {
			if v, ok := ctx[k]; ok && len(v) > width {
				width = min(len(v), 60)
			}
		}
		for _, k := range contextVars {
			v, ok := ctx[k]
			if !ok {
				continue
			}
			if k == "TMA_TITLE" {
				v = record.OneLine(v)
			}
			fmt.Fprintf(w, "  %-14s  %-*s  (%s)\n", k, width, v, ages[k])
		}
		if args := b.Req.Arg; len(args) > 0 {
			fmt.Fprintf(w, "  %-14s  %-*s  (--arg)\n", "TMA_ARG", width, args[0])
			for i, v := range args {
				if len(args) > 1 {
					fmt.Fprintf(w, "  %-14s  %-*s  (--arg)\n", fmt.Sprintf("TMA_ARG_%d", i+1), width, v)
				}
			}
		}
	}
	return r.ExitCode
}

// ages says how old each context value is: read from tmux this cycle (live)
// or from a stored stamp (its age).
func (b *Broker) ages(f *fleet.Fleet, pane string) map[string]string {
	out := map[string]string{}
	for _, k := range contextVars {
		out[k] = "live"
	}
	p := f.Pane(pane)
	if p == nil {
		return out
	}
	now := f.Cycle.NowMS
	if p.Verdict != nil && p.Verdict.EvidenceAt > 0 {
		age := fmt.Sprintf("%d ms old", max(now-p.Verdict.EvidenceAt, 0))
		out["TMA_STATE"], out["TMA_DETAIL"] = age, age
	}
	if at, err := strconv.ParseInt(p.Opts["@agent_stamped_at"], 10, 64); err == nil && at > 0 {
		out["TMA_SESSION_ID"] = fmt.Sprintf("%d ms old", max(now-at, 0))
	}
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
