package act

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MuteOption holds a pane's mute deadline in epoch milliseconds.
const MuteOption = "@agent_mute_until"

// MuteIndefinite is the deadline of a mute with no --for: far enough ahead
// that it never expires, short enough to stay an ordinary integer.
const MuteIndefinite int64 = 99999999999999

// maxMute bounds --for so that now + the duration stays below the
// indefinite sentinel (and far from int64 overflow): about 3000 years.
const maxMute = MuteIndefinite / 1000 / 2

var muteUnits = map[byte]int64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}

// ParseMuteFor reads --for: an integer with an optional unit s, m, h or d
// (a bare number is seconds). Zero, a sign, a fraction, spaces, another unit
// or a compound ("1h30m") are errors. It returns milliseconds.
func ParseMuteFor(s string) (int64, error) {
	bad := fmt.Errorf("invalid --for %q: an integer with an optional unit s, m, h or d (45s, 30m, 2h, 1d; a bare number is seconds)", s)
	num, mult := s, int64(1)
	if n := len(s); n > 0 {
		if m, ok := muteUnits[s[n-1]]; ok {
			num, mult = s[:n-1], m
		}
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, bad
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v > maxMute/mult {
		return 0, bad
	}
	if v == 0 {
		return 0, fmt.Errorf("invalid --for %q: a mute of zero is over before it starts (omit --for to mute until --clear)", s)
	}
	return v * mult * 1000, nil
}

// MuteUntil is the deadline a mute started at now stores: now + forMS, or
// MuteIndefinite when forMS is 0 (no --for).
func MuteUntil(now, forMS int64) int64 {
	if forMS <= 0 {
		return MuteIndefinite
	}
	return now + forMS
}

// DescribeMute renders a deadline for the mute command's output line:
// "until cleared", or "for 30m (until 2006-01-02 15:04:05)" in loc.
func DescribeMute(until, forMS int64, loc *time.Location) string {
	if until >= MuteIndefinite {
		return "until cleared"
	}
	return "for " + shortDuration(forMS) + " (until " + time.UnixMilli(until).In(loc).Format("2006-01-02 15:04:05") + ")"
}

// shortDuration prints milliseconds in the largest unit --for would accept
// for it exactly (90s stays 90s; 7200s is 2h).
func shortDuration(ms int64) string {
	s := ms / 1000
	for _, u := range []struct {
		n    int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}} {
		if s >= u.n && s%u.n == 0 {
			return strconv.FormatInt(s/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(s, 10) + "s"
}
