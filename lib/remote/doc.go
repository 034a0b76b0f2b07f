// Package remote is the client side of `tma serve`: it runs a [[remote]]
// entry's command (any argv whose stdin and stdout speak the serve
// protocol, ssh to a host's forced command in practice), says hello, asks
// for one snapshot, and hands back that host's rows. Each dial is bounded
// by its remote's timeout and runs in a process group of its own that is
// killed at the deadline, so a hung host costs a surface at most that long
// and one line, and local rows never wait on it.
package remote
