// Package completion writes tma's shell completion scripts (bash, zsh,
// fish) from a command tree, and builds that tree from the kong grammars
// the tools parse their own command lines with, so the scripts offer
// exactly the commands and flags the tools accept. Hidden commands and
// flags (tma's internal verbs and daemon flags) are never part of a tree.
// It offers fixed value sets only (enums, state lists), never a runtime
// value (agents, sessions, repos, branches, action names). Pure: it
// writes text and runs nothing.
package completion
