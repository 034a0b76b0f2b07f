package wait

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ParseTimeout reads --timeout: seconds (90, 1.5) or a duration (90s, 5m);
// "" is no timeout.
func ParseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("invalid value %q for --timeout: want seconds (90) or a duration (90s, 5m)", s)
}

// Choose sets the spec's target from the flags that name one: --pane,
// --any, --all or --count (at most one), else --agent alone. The spec's
// Count and Agent are the --count and --agent flags. Its error is a usage
// error, worded for the user.
func (s *Spec) Choose(pane string, any, all bool) error {
	n := 0
	for _, set := range []bool{pane != "", any, all, s.Count > 0} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("--pane, --any, --all and --count exclude each other")
	case s.Count < 0:
		return errors.New("--count must be at least 1")
	case pane != "":
		s.Target, s.Pane = TargetPane, pane
	case any:
		s.Target = TargetAny
	case all:
		s.Target = TargetAll
	case s.Count > 0:
		s.Target = TargetCount
	case s.Agent != "":
		s.Target = TargetAgent
	default:
		return errors.New("name a target: --pane, --agent, --any, --all or --count")
	}
	return nil
}
