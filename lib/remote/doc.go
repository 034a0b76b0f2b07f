// Package remote is the client side of `tma serve`: it runs a [[remote]]
// entry's command (any argv whose stdin and stdout speak the serve
// protocol, ssh to a host's forced command in practice), says hello, asks
// for one snapshot, and hands back that host's rows; or it holds one
// connection per remote for a long-running surface (Poller), dialled again
// with backoff when it fails; or it keeps connections for a process that
// answers one-shot asks on others' behalf (Pool: the daemon, for ls
// --host), each ask one fresh snapshot. It also names the argv that attaches a
// terminal to a remote pane (AttachArgv; the picker's window runs it
// through tmux, a plain terminal execs it here). It is the only package
// that starts ssh itself. Each dial is bounded by its remote's timeout and
// runs in a process group of its own that is killed at the deadline, so a
// hung host costs a surface at most that long and one line, and local
// rows never wait on it.
package remote
