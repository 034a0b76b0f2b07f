package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysLine: the keys: line says what each tma binding runs on this
// server, and warns (127, silently) when a bare tma is not on the server's
// PATH or an absolute one is gone.
func TestKeysLine(t *testing.T) {
	dir := t.TempDir()
	tma := filepath.Join(dir, "tma")
	if err := os.WriteFile(tma, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		keys  Keys
		warns int
		want  string
	}{
		{"none", Keys{Read: true}, 0, ""},
		{"absolute", Keys{Read: true, Calls: []KeyCall{{"g", tma, ""}, {"j", tma, ""}}}, 0, "keys:    g j run " + tma + " ✓\n"},
		{"bare on the server's PATH", Keys{Read: true, ServerPATH: "/nonexistent:" + dir, Calls: []KeyCall{{"g", "tma", ""}}}, 0, "keys:    g run `tma`, " + tma + " on the server's PATH ✓\n"},
		{"bare, not on the server's PATH", Keys{Read: true, ServerPATH: "/usr/bin:/bin", Calls: []KeyCall{{"g", "tma", ""}, {"a", "tma", ""}}}, 1,
			"keys:    g a run `tma`, which is not on the tmux server's PATH (/usr/bin:/bin): tmux fails them with 127"},
		{"absolute, another install", Keys{Read: true, Self: "/new/bin/tma", Calls: []KeyCall{{"g", tma, ""}}}, 0, "keys:    g run " + tma + " ✓, not this tma (/new/bin/tma): re-run `tma install-keys`"},
		{"absolute, this install", Keys{Read: true, Self: tma, Calls: []KeyCall{{"g", tma, ""}}}, 0, "keys:    g run " + tma + " ✓\n"},
		{"absolute, gone", Keys{Read: true, Calls: []KeyCall{{"g", "/gone/bin/tma", ""}}}, 1, "keys:    g run /gone/bin/tma, which is not an executable file"},
	} {
		var b strings.Builder
		warns := 0
		line := func(label, format string, a ...any) {
			b.WriteString(fmt.Sprintf("%-9s", label) + sprintf(format, a...) + "\n")
		}
		d := c.keys.line(line, func() { warns++ })
		if warns != c.warns || !strings.Contains(b.String(), c.want) || (c.want == "") != (b.Len() == 0) {
			t.Errorf("%s: %d warnings, text %q", c.name, warns, b.String())
		}
		if d.OK != (warns == 0 && len(c.keys.Calls) > 0) || len(d.Bindings) != len(c.keys.Calls) {
			t.Errorf("%s: report %+v", c.name, d)
		}
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
