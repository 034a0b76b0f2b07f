package hookcmd

import (
	"context"

	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/telemetry"
	"github.com/tmaproject/tma/lib/tmux"
)

// fileTail reads a file-tail context channel (Codex's rollout) when the
// event names the file: its transcript path. nil when there is nothing to
// read or the file reports nothing yet; the event goes on either way.
func fileTail(a *manifest.Agent, p hook.Payload, say func(string, ...any)) *telemetry.Reading {
	if a.Telemetry == nil || a.Telemetry.Context == nil || a.Telemetry.Context.Channel != "file-tail" || p.Transcript == "" {
		return nil
	}
	if a.Telemetry.Context.Format != telemetry.CodexRollout || !telemetry.RolloutPath(p.Transcript) {
		return nil
	}
	r, err := telemetry.ReadRollout(p.Transcript)
	if err != nil {
		say("context: %v", err)
		return nil
	}
	if r.Empty() {
		return nil
	}
	return &r
}

// stampTail writes a rollout reading after the daemon took the event (the
// daemon sees the payload, not the file). It costs a tmux spawn, so only a
// turn's end pays it: the record Codex writes with the turn's last answer.
// Without a daemon the reading rides the event's own write (lib/hook).
func stampTail(ctx context.Context, tc *tmux.Client, ev hook.Event, say func(string, ...any)) {
	if ev.Telemetry == nil {
		return
	}
	if m := ev.Agent.MapEvent(ev.Name, ev.Payload.Raw); m == nil || !m.TurnEnd {
		return
	}
	l, err := hook.TelemetryLine(ev, ev.Pane, *ev.Telemetry)
	if err != nil {
		say("context: %v", err)
		return
	}
	if _, errs, err := tc.Batch(ctx, []string{l}); err != nil || errs != "" {
		say("context: %v %s", err, errs)
	}
}
