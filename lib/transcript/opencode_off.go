//go:build noopencode

package transcript

// OpenCodeBuilt says this build reads OpenCode's store: built with the
// noopencode tag, it links no SQLite driver and refuses OpenCode panes
// (the manual's build without its opencode feature).
const OpenCodeBuilt = false

func opencodePage(path, session string, req Request) (*Page, *Refusal) {
	return nil, refuse(CodeUnsupportedStore, "this tma was built without OpenCode's store (the noopencode tag): %s is not read", path)
}
