package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNewer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0.2.0", "0.1.0", true}, {"0.1.0", "0.2.0", false}, {"0.1.0", "0.1.0", false},
		{"1.0.0", "0.9.9", true}, {"0.10.0", "0.9.0", true}, {"0.1.1", "0.1.0", true},
		{"0.2.0-dev", "0.1.0", false}, {"0.2", "0.1.0", false}, {"0.2.0", "", false}, {"v0.2.0", "0.1.0", false},
		{"0.2.0", "0.1.x", false}, {"0..0", "0.0.0", false},
	} {
		if got := Newer(c.a, c.b); got != c.want {
			t.Errorf("Newer(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// The claim is one at a time and once a minute.
func TestClaimUpgrade(t *testing.T) {
	d := t.TempDir()
	p := Paths{Upgraded: filepath.Join(d, "x.upgraded")}
	now := time.Now()
	release, ok := ClaimUpgrade(p, now)
	if !ok {
		t.Fatal("the first claim failed")
	}
	if _, ok := ClaimUpgrade(p, now.Add(2*UpgradeEvery)); ok {
		t.Fatal("a second claim while the first is held")
	}
	release()
	if _, ok := ClaimUpgrade(p, now.Add(UpgradeEvery/2)); ok {
		t.Fatal("a claim within the minute")
	}
	r2, ok := ClaimUpgrade(p, now.Add(UpgradeEvery+time.Second))
	if !ok {
		t.Fatal("a claim past the minute failed")
	}
	r2()
	if st, _ := os.Stat(p.Upgraded); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	// A time ahead of now (a clock stepped back) does not block forever.
	if _, ok := ClaimUpgrade(p, now); !ok {
		t.Fatal("a claim recorded in the future blocked one now")
	}
}

// UpgradeDue wants a live pid and a strictly newer build.
func TestUpgradeDue(t *testing.T) {
	me := &Running{PID: os.Getpid(), Version: "0.1.0"}
	if !UpgradeDue(me, "0.2.0") || UpgradeDue(me, "0.1.0") || UpgradeDue(me, "0.0.9") || UpgradeDue(nil, "9.9.9") {
		t.Fatal("the version rule")
	}
	if UpgradeDue(&Running{PID: 999999, Version: "0.1.0"}, "0.2.0") {
		t.Fatal("a dead pid is nothing to replace")
	}
}
