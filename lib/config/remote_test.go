package config

import (
	"strings"
	"testing"
	"time"
)

func TestRemotes(t *testing.T) {
	c, err := parse([]byte(`
[[remote]]
name = "build"
command = ["ssh", "-T", "build"]

[[remote]]
name = "vm"
command = ["ssh", "-T", "vm", "tma", "serve", "--stdio", "--device", "laptop"]
attach = ["ssh", "-t", "vm", "tma", "attach", "--pane"]
timeout_ms = 500
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Remotes) != 2 || c.Remote("build").Timeout() != 2*time.Second || c.Remote("vm").Timeout() != 500*time.Millisecond ||
		c.Remote("vm").Attach[1] != "-t" || c.Remote("nosuch") != nil {
		t.Errorf("remotes %+v", c.Remotes)
	}
	if d := Default(); len(d.Remotes) != 0 {
		t.Errorf("default remotes %+v", d.Remotes)
	}
	for _, bad := range []struct{ body, want string }{
		{"[[remote]]\nname = \"b\"\ncommand = [\"ssh\"]\nhost = \"x\"\n", "remote.host: unknown key"},
		{"[[remote]]\ncommand = [\"ssh\"]\n", "remote[1].name: is required"},
		{"[[remote]]\nname = \"b\"\n", "remote[1].command: is required"},
		{"[[remote]]\nname = \"b\"\ncommand = []\n", "remote[1].command: is required"},
		{"[[remote]]\nname = \"all\"\ncommand = [\"ssh\"]\n", `remote[1].name: "all" is --host's word`},
		{"[[remote]]\nname = \"a b\"\ncommand = [\"ssh\"]\n", "remote[1].name: invalid host label"},
		{"[[remote]]\nname = \"b\"\ncommand = [\"ssh\"]\n[[remote]]\nname = \"b\"\ncommand = [\"ssh\"]\n", `remote[2].name: remote "b" is listed twice`},
		{"[[remote]]\nname = \"b\"\ncommand = [\"ssh\"]\ntimeout_ms = 0\n", "remote[1].timeout_ms: must be at least 1"},
		{"[[remote]]\nname = \"b\"\ncommand = [\"ssh\"]\nattach = []\n", "remote[1].attach: an empty argv"},
		{"[[remote]]\nname = \"b\"\ncommand = \"ssh build\"\n", "expected array, found string"},
	} {
		_, err := parse([]byte(bad.body))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.body, err, bad.want)
		}
	}
}
