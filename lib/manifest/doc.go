// Package manifest parses agent manifests strictly and evaluates their screen rules; it is
// pure but for reading manifest files, which only a Set does (Load lists a directory, Get
// reads a file the first time its agent is asked for). It never runs a program and never
// talks to tmux. The bundled manifests are Go values generated from manifests/agents
// (go generate) and held equal to their TOML parse by the tests.
package manifest
