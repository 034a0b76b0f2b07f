package act

import (
	"fmt"
	"strconv"
	"strings"
)

// LockOption holds a pane's single-flight action lock:
// <expiry_ms>:<nonce>:<pid>:<name>.
const LockOption = "@agent_action"

// RepeatOption holds a pane's run of repeated fires:
// <episode_ms>:<action>:<count>.
const RepeatOption = "@agent_act_repeat"

// LockSlackMS is added to a keys or text action's lock expiry (and to an
// exec action's timeout): long enough for the re-read and the delivery, short
// enough that a crashed broker does not hold the pane for long.
const LockSlackMS = 10_000

// Lock is one lock value.
type Lock struct {
	ExpiryMS int64
	Nonce    string
	PID      int
	Name     string
}

func (l Lock) String() string {
	return fmt.Sprintf("%d:%s:%d:%s", l.ExpiryMS, l.Nonce, l.PID, l.Name)
}

// ParseLock reads a stored lock; ok is false for anything else.
func ParseLock(s string) (Lock, bool) {
	f := strings.SplitN(s, ":", 4)
	if len(f) != 4 {
		return Lock{}, false
	}
	exp, err1 := strconv.ParseInt(f[0], 10, 64)
	pid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return Lock{}, false
	}
	return Lock{ExpiryMS: exp, Nonce: f[1], PID: pid, Name: f[3]}, true
}

// Held reports whether a stored lock value still holds the pane at now: it
// parses and has not expired. A value that does not parse holds nothing
// (the server-side guard reads its leading digits the same way).
func Held(stored string, now int64) bool {
	l, ok := ParseLock(stored)
	return ok && l.ExpiryMS >= now
}

// TakeGuard is the tmux condition under which the lock may be taken at now:
// the stored expiry (its leading digits, 0 when unset) is before now. tmux
// expands it once, server-side, so two brokers cannot both see it free.
func TakeGuard(now int64) string {
	return fmt.Sprintf("#{e|<:#{s/[^0-9].*//:%s},%d}", LockOption, now)
}

// ReleaseGuard is the condition under which a broker may release the lock:
// it still holds exactly the value it wrote.
func ReleaseGuard(l Lock) string {
	return fmt.Sprintf("#{==:#{%s},%s}", LockOption, l.String())
}

// NextRepeat folds one acted fire into the stored run: the same action in
// the same episode extends it, anything else starts over at 1.
func NextRepeat(stored string, episode int64, action string) (value string, count int) {
	count = 1
	if f := strings.SplitN(stored, ":", 3); len(f) == 3 {
		ep, err1 := strconv.ParseInt(f[0], 10, 64)
		n, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil && ep == episode && f[1] == action && n > 0 {
			count = n + 1
		}
	}
	return fmt.Sprintf("%d:%s:%d", episode, action, count), count
}

// RepeatWarn is the count from which the repeat warning prints.
const RepeatWarn = 3
