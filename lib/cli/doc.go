// Package cli holds no code: its subdirectories are tma's commands, one per
// binary (cmd/tma-<tool>'s main calls lib/cli/<tool>.Run), plus common, what
// every command shares.
//
// A command parses its flags, checks the usage errors, loads what it needs
// and wires the lib/<concern> packages that hold the logic (and its unit
// tests); it keeps no product logic of its own.
//
// Naming: the package in lib/cli/<tool> is named <tool>cmd (lib/cli/act is
// package actcmd, lib/cli/daemon is daemoncmd), so that it and lib/<tool>
// are imported side by side without an alias; common keeps its name.
package cli
