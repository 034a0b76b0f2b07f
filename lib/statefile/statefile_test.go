package statefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rec struct {
	Version int      `toml:"version"`
	Files   []string `toml:"files"`
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path string
		found      bool
		want       rec
		err        string
	}{
		{name: "missing keeps the default", path: filepath.Join(dir, "none.toml"), want: rec{Version: 1}},
		{name: "read", path: write("ok.toml", "# header\nversion = 2\nfiles = [\"a\", \"b\"]\n"), found: true, want: rec{Version: 2, Files: []string{"a", "b"}}},
		{name: "malformed names the file", path: write("bad.toml", "version = [\n"), found: true, err: "bad.toml: "},
		{name: "wrong type names the file", path: write("type.toml", "version = \"x\"\n"), found: true, err: "type.toml: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rec{Version: 1}
			found, err := Load(tc.path, &got)
			if found != tc.found {
				t.Errorf("found = %v, want %v", found, tc.found)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Version != tc.want.Version || strings.Join(got.Files, ",") != strings.Join(tc.want.Files, ",") {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	data, err := Encode("# written by tma\n", rec{Version: 1, Files: []string{"tma"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# written by tma\nversion = 1\n") {
		t.Fatalf("encoded:\n%s", data)
	}
	p := filepath.Join(t.TempDir(), "r.toml")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var back rec
	if _, err := Load(p, &back); err != nil || back.Version != 1 || len(back.Files) != 1 || back.Files[0] != "tma" {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}
