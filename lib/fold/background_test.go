package fold

import (
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/manifest"
)

// Between its turns an agent with background work draws its idle prompt
// box: a working/background hook claim is neither released by that chrome
// nor expired by it, however long the work runs.
func TestBackgroundClaimOutlivesIdleChrome(t *testing.T) {
	a, err := manifest.Parse("agent", "test", []byte(strings.Replace(testManifest, `visible = ["working", "blocked"]`, `visible = ["working", "idle", "blocked"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	bg := func(ago int64) prior {
		return stamped("working", "hook", ago, ago).with("@agent_detail", BackgroundDetail)
	}
	cases := []struct {
		name string
		p    prior
		want string
	}{
		{"first sight of idle chrome", bg(5000), "hold working/background hook refresh"},
		{"idle chrome confirmed a cycle later", bg(5000).with("@tma_unblock_seen", ms(now-1000)), "hold working/background hook refresh"},
		{"past the hook decay window", bg(int64(DefaultTuning.HookDecaySecs)*1000 + 60_000), "hold working/background hook refresh"},
		{"ten minutes in", bg(600_000).with("@tma_unblock_seen", ms(now-590_000)), "hold working/background hook refresh"},
	}
	for _, c := range cases {
		if got := describe(Fold(pane(c.p, idleScreen), a, DefaultTuning, false)); got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
	// Blocker chrome still lands at once (a permission prompt in a turn
	// the background work's end started).
	if got := describe(Fold(pane(bg(5000), blockedScreen), a, DefaultTuning, false)); got != "publish blocked/permission capture +attn +reset override" {
		t.Errorf("blocker over a background claim: %q", got)
	}
	// The same claim without the detail is released as before: the
	// exemption is the background detail's alone.
	plain := stamped("working", "hook", 5000, 5000).with("@agent_detail", "rate_limit").with("@tma_unblock_seen", ms(now-1000))
	if got := describe(Fold(pane(plain, idleScreen), a, DefaultTuning, false)); got != "publish idle capture +attn +reset override" {
		t.Errorf("working/rate_limit: %q", got)
	}
	// A capture's own working/background verdict (no hook) ends with idle
	// chrome after the dwell, like any working.
	cap := stamped("working", "capture", 5000, 5000).with("@agent_detail", BackgroundDetail).with("@tma_idle_since", ms(now-4000))
	if got := describe(Fold(pane(cap, idleScreen), a, DefaultTuning, false)); got != "publish idle capture +attn +reset" {
		t.Errorf("screen-only background: %q", got)
	}
}
