package daemon

import (
	"testing"
	"time"
)

func TestScanIntervalPollsFasterWithoutControlClients(t *testing.T) {
	if got := ScanInterval(true); got != time.Second {
		t.Fatalf("push: %s, want the 1 s tick", got)
	}
	poll := ScanInterval(false)
	if poll != PollInterval || poll >= ScanInterval(true) {
		t.Fatalf("poll: %s, want PollInterval (%s), shorter than push's %s", poll, PollInterval, ScanInterval(true))
	}
	// A change waits half an interval in the median, then a cycle (tens of
	// ms at 40 panes): issue 26's poll goal is p50 ≤ 500 ms.
	if poll/2+100*time.Millisecond > 500*time.Millisecond {
		t.Fatalf("poll: %s leaves no room for the cycle under a 500 ms median", poll)
	}
	// tma-scan raises an --interval under 100 ms to 100 ms.
	if poll < 100*time.Millisecond {
		t.Fatalf("poll: %s is under tma-scan's floor", poll)
	}
}
