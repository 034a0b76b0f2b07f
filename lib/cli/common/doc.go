// Package common holds what every tma command shares: the global flags, the
// one way to load config and manifests, the tmux client, and error output.
package common
