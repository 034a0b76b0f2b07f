// Package pickcmd is the tma-pick command: the fzf picker (`tma` with no
// command), `tma jump`, `tma attach` and `tma watch`. Every one of them runs
// a full cycle first (lib/fleet), so every surface is a driver.
package pickcmd
