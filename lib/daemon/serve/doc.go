// Package serve is the resident daemon of one tmux server: it holds the
// server's lock and socket, supervises the design card's pipeline kept open
// (tma-scan --follow | tma-fold | tma-stamp, separate processes restarted
// with backoff), keeps the latest cycle and the transitions ring in memory,
// answers the protocol of lib/daemon over its socket, and is the one writer
// of what it commits (hook events handed to it, @tma_status, the tmux hooks
// it re-arms). It also starts a detached daemon for --ensure and --restart.
// It runs tma's own stages and tmux (through lib/tmux), nothing else.
package serve
