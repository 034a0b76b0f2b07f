// Package hookcmd is the tma-hook command, what agent configs call: it maps one
// event through the agent's manifest and writes a guarded hook claim. It
// always exits 0 and stays fast: a hook must never slow or fail the agent.
package hookcmd
