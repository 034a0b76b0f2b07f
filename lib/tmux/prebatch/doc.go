// Package prebatch starts tma-hook's write client (`source-file -`) from an
// init function, before the rest of the program is initialized: imported
// (blank) by tma-hook's main package alone, whose tmux client then starts
// up beside the hook's own start-up (the runtime's init of kong, toml and
// the manifests, the flag parse, the config load, the payload). lib/tmux
// takes the process over when the hook's write is the same binary and
// server (listcall.TakeBatch), and ends it otherwise. It starts nothing
// outside a pane or where the server's daemon socket exists.
package prebatch
