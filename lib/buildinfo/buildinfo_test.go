package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "tma 1.2.3\ngo:       " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"},
		{"a git checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20260501100000-7381e51c0ffe+dirty"}, Settings: []debug.BuildSetting{
			{Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"},
			{Key: "vcs.revision", Value: "7381e51c0ffee"}, {Key: "vcs.time", Value: "2026-05-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "tma 1.2.3\ncommit:   7381e51c0ffee (modified)\ndate:     2026-05-01T10:00:00Z\ngo:       go1.26.8 darwin/arm64\n"},
		{"go install of the same tag", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}},
			"tma 1.2.3\ngo:       go1.26.0 linux/amd64\n"},
		{"go install of another version", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20260501100000-7381e51c0ffe"}, Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}}},
			"tma 1.2.3\nmodule:   v0.0.0-20260501100000-7381e51c0ffe\ngo:       go1.26.0 linux/arm64\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		if err := FromBuildInfo("1.2.3", c.bi).Write(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, b.String(), c.want)
		}
	}
}

// The test binary is a real build: Read finds its toolchain.
func TestReadRunningBinary(t *testing.T) {
	i := Read("9.9.9")
	if i.Version != "9.9.9" || i.Go != runtime.Version() || i.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("Read = %+v", i)
	}
}
