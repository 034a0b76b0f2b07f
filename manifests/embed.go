// Package manifests holds the bundled agent and action manifests, embedded
// into every binary that loads them.
package manifests

import "embed"

// Agents holds agents/<agent>.toml, one bundled agent manifest per file.
//
//go:embed agents/*.toml
var Agents embed.FS

// Actions holds actions/<name>.toml, one bundled action manifest per file.
//
//go:embed actions/*.toml
var Actions embed.FS
