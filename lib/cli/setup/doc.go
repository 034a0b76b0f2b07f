// Package setupcmd is the tma-setup command: `tma install-hooks` (wiring each
// agent's config to tma-hook and the tmux server to tma's attention clears,
// with a diff and a confirmation before every write), and the entry points
// of install-keys and init.
package setupcmd
