package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is one build's identity.
type Info struct {
	Version  string // tma's version (lib/cli/common.Version, set by -ldflags)
	Module   string // the main module's version as Go recorded it: a tag under go install, a pseudo-version in a checkout, "" for (devel)
	Commit   string // vcs.revision
	Time     string // vcs.time: the commit's time (RFC 3339)
	Modified bool   // vcs.modified: built from a tree with uncommitted changes
	Go       string // the toolchain, e.g. go1.26.8
	Platform string // GOOS/GOARCH
}

// Read is the running binary's Info for the version the build set.
func Read(version string) Info {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(version, bi)
}

// FromBuildInfo is Read over a given debug.BuildInfo (nil when the binary
// carries none).
func FromBuildInfo(version string, bi *debug.BuildInfo) Info {
	i := Info{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return i
	}
	if bi.GoVersion != "" {
		i.Go = bi.GoVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		i.Module = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		case "GOOS":
			i.Platform = s.Value + i.Platform[strings.IndexByte(i.Platform, '/'):]
		case "GOARCH":
			i.Platform = i.Platform[:strings.IndexByte(i.Platform, '/')+1] + s.Value
		}
	}
	return i
}

// Write prints the manual's first line, `tma <version>`, then one line per
// thing the build recorded; a field the build did not record is left out
// rather than printed as unknown.
func (i Info) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tma %s\n", i.Version)
	// Built in a checkout, the module version is the commit's pseudo-version
	// and the commit line says it better; from the module proxy (go install
	// …@version) it is what the user asked for.
	if i.Module != "" && i.Module != "v"+i.Version && i.Commit == "" {
		fmt.Fprintf(&b, "module:   %s\n", i.Module)
	}
	if i.Commit != "" {
		c := i.Commit
		if i.Modified {
			c += " (modified)"
		}
		fmt.Fprintf(&b, "commit:   %s\n", c)
	}
	if i.Time != "" {
		fmt.Fprintf(&b, "date:     %s\n", i.Time)
	}
	fmt.Fprintf(&b, "go:       %s %s\n", i.Go, i.Platform)
	_, err := io.WriteString(w, b.String())
	return err
}
