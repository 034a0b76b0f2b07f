// Package hook turns one agent hook event into the guarded tmux writes that
// record it; it decides from the event, the payload and what the server
// showed, and runs nothing itself.
package hook
