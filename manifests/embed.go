// Package manifests holds the bundled agent and action manifests. The
// action manifests are embedded into the binaries that load them; the agent
// manifests are the source of lib/manifest's generated Go values (go
// generate ./lib/manifest), embedded here for that generator and for the
// test that holds the two equal.
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
