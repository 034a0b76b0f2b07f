// Package prelist starts tma-scan's list call from an init function, before
// the rest of the program is initialized: imported (blank) by tma-scan's
// main package alone, whose one-shot cycle then overlaps tmux's answer with
// its own start-up (the runtime's init of kong, toml and the manifests, the
// flag parse, the config load). lib/tmux takes the call over when the scan
// makes the same call (listcall.Take), and ends it otherwise.
package prelist
