//go:build !linux

package tmux

// ServerPID is 0 off Linux: the scan walks after its list there.
func (c *Client) ServerPID(getenv func(string) string) int { return 0 }
