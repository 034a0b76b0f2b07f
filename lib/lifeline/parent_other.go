//go:build !linux

package lifeline

// armParentDeath has no kernel form here; Bind polls instead.
func armParentDeath() bool { return false }
