package daemon

import "time"

// The daemon's scan cadence, its tma-scan's --interval. With control-mode
// pushes a change starts a cycle of its own within tens of milliseconds,
// and the tick is only what resolves a quiet screen's dwell and a hook
// claim's decay: Interval. With no control client ([tmux] control_clients
// = false) the tick is the only way a change is seen, and a change waits
// for the next one, half an interval in the median. PollInterval keeps
// that median under issue 26's 500 ms with room for the cycle, and the
// idle daemon's tree inside issue 11's 1 % of one core at 40 panes, which
// 500 ms would not (docs/performance.md, *Push and poll*: 750 ms measured
// p50 366–395 ms at 0.77–0.90 % idle; 500 ms, 287–298 ms at 1.18–1.38 %;
// 1 s, 496–518 ms at 0.65–0.68 %).
const (
	Interval     = time.Second
	PollInterval = 750 * time.Millisecond
)

// ScanInterval is the --interval the daemon's scan runs with: Interval
// when its follow may attach control clients (push), PollInterval when it
// may not.
func ScanInterval(push bool) time.Duration {
	if push {
		return Interval
	}
	return PollInterval
}
