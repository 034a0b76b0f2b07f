// Package doctor is tma doctor's verdict: from the facts the command
// gathered (one capture-less scan, the daemon, the tmux hooks, the wrapper,
// manifests, actions, fzf, the last notify failure, the server's status and
// mouse options, each agent's hook wiring) it decides every warning, each
// pane's tier and why it is not higher, and renders the report as text and
// as the schema-1 JSON document. Diagnose is pure; the two reads it cannot
// do without (the server's options, an agent server's answer) are
// ReadOptions and APIProblem, which the command calls.
package doctor
