// Package doctor is tma doctor's verdict: from the facts the command
// gathered (one capture-less scan, the daemon, the tmux hooks, the wrapper,
// manifests, actions, fzf, the last notify failure, the server's status and
// mouse options, each agent's hook wiring) it decides every warning, each
// pane's tier and why it is not higher, and renders the report as text and
// as the schema-1 JSON document. Diagnose is pure; the reads it cannot do
// without (the server's options, its key tables and PATH, an agent
// server's answer) are ReadOptions, ReadKeys and APIProblem, which the
// command calls. A binding is checked as the server would run it: its tma
// resolved against the server's PATH, not the shell's.
package doctor
