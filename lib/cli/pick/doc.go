// Package pickcmd is the tma-pick command: the fzf picker (`tma` with no
// command), `tma jump`, `tma attach` and `tma watch`. Every one of them runs
// a full cycle first (lib/fleet), so every surface is a driver. Watch's rows,
// frame and key decisions are lib/watch's model; here are its terminal loop,
// the cycles and captures it is fed, and the jumps and menus it asks for.
package pickcmd
