// Package notices reads THIRD_PARTY_NOTICES.md, the list of every module
// linked into tma's binaries and into the fzf the release archives carry,
// so the tests can hold it to the build: this package's own test against
// `go list -deps` of ./cmd/..., tests/dist against the archive's fzf.
package notices

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// File is the notices file's name at the repository root.
const File = "THIRD_PARTY_NOTICES.md"

// The two parts of the file, by their "## " headings.
const (
	PartTMA = "Linked into tma's binaries"
	PartFZF = "fzf, shipped in the release archives"
)

// Module is one "### path version (SPDX)" entry.
type Module struct {
	Path, Version, License string
	// Text is the licence text of the entry's fenced block.
	Text string
}

// Key is "path version", the way the build names a module.
func (m Module) Key() string { return m.Path + " " + m.Version }

var entryRE = regexp.MustCompile(`^### (\S+) (v\S+) \(([A-Za-z0-9.+-]+)\)$`)

// Read parses the notices file into its parts' module entries. The Go
// standard library's entry has no module path and is not among them.
func Read(path string) (map[string][]Module, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	parts := map[string][]Module{}
	part := ""
	var cur *Module
	inText := false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case inText && line == "```":
			inText = false
			if cur != nil {
				parts[part] = append(parts[part], *cur)
				cur = nil
			}
		case inText:
			if cur != nil {
				cur.Text += line + "\n"
			}
		case line == "```text":
			inText = true
		case strings.HasPrefix(line, "## "):
			part = strings.TrimPrefix(line, "## ")
		case strings.HasPrefix(line, "### "):
			if cur != nil {
				return nil, fmt.Errorf("%s:%d: %s has no licence text (a ```text block)", path, n, cur.Key())
			}
			if strings.HasPrefix(line, "### Go standard library") {
				continue
			}
			m := entryRE.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: %q is not \"### <module> <version> (<SPDX id>)\"", path, n, line)
			}
			if part == "" {
				return nil, fmt.Errorf("%s:%d: %s is under no part", path, n, m[1])
			}
			cur = &Module{Path: m[1], Version: m[2], License: m[3]}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inText || cur != nil {
		return nil, fmt.Errorf("%s: the last entry's licence text is not closed", path)
	}
	return parts, nil
}

// Diff compares the entries with the modules the build links ("path
// version" each): what is linked and not listed, and what is listed and
// not linked (a version bump is both).
func Diff(listed []Module, linked []string) (missing, stale []string) {
	have := map[string]bool{}
	for _, m := range listed {
		have[m.Key()] = true
	}
	link := map[string]bool{}
	for _, l := range linked {
		link[l] = true
		if !have[l] {
			missing = append(missing, l)
		}
	}
	for _, m := range listed {
		if !link[m.Key()] {
			stale = append(stale, m.Key())
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	return missing, stale
}
