package setupcmd

import (
	"testing"

	"github.com/tmaproject/tma/lib/install"
)

// TestWrittenWrapper: uninstall tells the shim install wrote from a
// wrapper of the user's own by its first lines.
func TestWrittenWrapper(t *testing.T) {
	for _, c := range []struct {
		b    string
		want bool
	}{
		{string(install.WrapperScript("/home/u/.local/bin/tma-hook")), true},
		{string(install.WrapperScript("/opt/it's here/tma-hook")), true},
		{"#!/bin/sh\nexec /home/u/.local/bin/tma-hook \"$@\"\n", false},
		{"#!/bin/sh\n", false},
		{"\x7fELF\x02\x01\x01", false},
		{"", false},
	} {
		if got := writtenWrapper([]byte(c.b)); got != c.want {
			t.Errorf("writtenWrapper(%q) = %v, want %v", c.b, got, c.want)
		}
	}
}
