package serve

import "github.com/tmaproject/tma/lib/device"

// scopeTable is the closed remote vocabulary: the actions a device can
// reach, and the scope each needs. An action not named here is refused at
// every scope, whoever wrote it (compact included): reaching an agent's own
// command plane is what the scopes withhold. always is the "allow always"
// answer; tma ships no such action, so it resolves only where a user
// defines one, and it still needs act:always.
var scopeTable = map[string]string{
	"approve":   device.ScopeAnswer,
	"deny":      device.ScopeAnswer,
	"answer":    device.ScopeAnswer,
	"dismiss":   device.ScopeAnswer, // declines a question: deny's kin
	"interrupt": device.ScopeSteer,
	"steer":     device.ScopeSteer,
	"steer_now": device.ScopeSteer,
	"always":    device.ScopeAlways,
}

// ScopeFor is the scope an action needs over serve; ok is false for an
// action outside the table.
func ScopeFor(action string) (scope string, ok bool) {
	s, ok := scopeTable[action]
	return s, ok
}
