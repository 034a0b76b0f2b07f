//go:build manifestgen

package manifest

// Built with -tags manifestgen, the package has no bundled agents, so that
// go generate can rewrite bundled_gen.go even when the Agent types changed
// under it and the old file no longer compiles.

var bundledNames []string

func bundledAgent(string) *Agent { return nil }
