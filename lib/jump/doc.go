// Package jump decides where `tma jump` moves a client and plans the one
// batched tmux call that moves it: the acting client, the per-client return
// trail, the destination by direction, the agent menu. It runs nothing.
package jump
