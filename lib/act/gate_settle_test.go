package act

import "testing"

func TestSettleWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Target
		now  int64
		want int64
	}{
		{"no settle", Target{State: "blocked", Since: 1000}, 1100, 0},
		{"fresh dialog waits the rest", Target{State: "blocked", Since: 1000, SettleMS: 700}, 1100, 600},
		{"old enough", Target{State: "blocked", Since: 1000, SettleMS: 700}, 1700, 0},
		{"a working pane never waits", Target{State: "working", Since: 1000, SettleMS: 700}, 1100, 0},
		{"no since known", Target{State: "blocked", SettleMS: 700}, 1100, 0},
		{"a since in the future waits settle at most", Target{State: "blocked", Since: 5000, SettleMS: 700}, 1100, 700},
	} {
		if got := SettleWait(tc.t, tc.now); got != tc.want {
			t.Errorf("%s: SettleWait = %d, want %d", tc.name, got, tc.want)
		}
	}
}
