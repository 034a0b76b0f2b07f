package device

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", FileName)
	err := Update(path, func(s *Store) error {
		s.Devices = append(s.Devices,
			Device{Name: "phone", ID: "SHA256:0Mn3XQvCJ8pQe1lU6q2ZKq7BhX0tYr9WfSdA3nGkLpM", Scopes: []string{ScopeSteer, ScopeRead, ScopeAnswer}, PairedAtMS: 17},
			Device{Name: "tablet", ID: "MD5:aa:bb:cc", Scopes: OnlyScopes})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Device{
		{Name: "phone", ID: "SHA256:0Mn3XQvCJ8pQe1lU6q2ZKq7BhX0tYr9WfSdA3nGkLpM", Scopes: DefaultScopes, PairedAtMS: 17},
		{Name: "tablet", ID: "MD5:aa:bb:cc", Scopes: OnlyScopes},
	}
	if d := cmp.Diff(want, s.Devices); d != "" {
		t.Errorf("devices (-want +got):\n%s", d)
	}
	if d := s.ByID("MD5:aa:bb:cc"); d == nil || d.Name != "tablet" || d.Has(ScopeAnswer) {
		t.Errorf("ByID tablet = %+v", d)
	}
}

func TestMissingIsEmpty(t *testing.T) {
	s, err := Load(filepath.Join(t.TempDir(), FileName))
	if err != nil || len(s.Devices) != 0 {
		t.Fatalf("Load missing = %+v, %v", s, err)
	}
}

func TestStrict(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"unknown key", "[[device]]\nname = \"a\"\nid = \"x\"\nscopes = []\ncolour = 1\n", "device.colour: unknown key"},
		{"unknown top", "owner = 1\n", "owner: unknown key"},
		{"unknown scope", "[[device]]\nname = \"a\"\nid = \"x\"\nscopes = [\"act:all\"]\n", `device[1].scopes: unknown scope "act:all"`},
		{"missing id", "[[device]]\nname = \"a\"\n", "device[1].id: missing"},
		{"missing name", "[[device]]\nid = \"a\"\n", "device[1].name: missing"},
		{"dup name", "[[device]]\nname = \"a\"\nid = \"x\"\n[[device]]\nname = \"a\"\nid = \"y\"\n", `device[2].name: device "a" is listed twice`},
		{"dup id", "[[device]]\nname = \"a\"\nid = \"x\"\n[[device]]\nname = \"b\"\nid = \"x\"\n", "device[2].id: id x is listed twice"},
		{"bad id", "[[device]]\nname = \"a\"\nid = \"x y\"\n", `device[1].id: invalid device id "x y"`},
		{"wrong type", "[[device]]\nname = 3\n", "devices F:2: device.name: incompatible types"},
		{"syntax", "[[device]\n", "devices F:2: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "F")
			if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatalf("no error for %q", c.body)
			}
			got := strings.ReplaceAll(err.Error(), path, "F")
			if !strings.Contains(got, c.want) {
				t.Errorf("error %q does not contain %q", got, c.want)
			}
			if !strings.HasPrefix(got, "devices F") {
				t.Errorf("error %q does not name the file", got)
			}
		})
	}
}

// Concurrent updates under the flock never lose one another's device.
func TestUpdateSerializes(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Update(path, func(s *Store) error {
				s.Devices = append(s.Devices, Device{Name: n, ID: "id" + string(rune('0'+i)), Scopes: OnlyScopes})
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Devices) != len(names) {
		t.Errorf("%d devices after %d concurrent pairs", len(s.Devices), len(names))
	}
}

func TestChecks(t *testing.T) {
	for _, ok := range []string{"phone", "ipad.mini", "a@b", "x-1"} {
		if CheckName(ok) != nil {
			t.Errorf("CheckName(%q) refused", ok)
		}
	}
	for _, bad := range []string{"", "-x", "a b", "a\"b", strings.Repeat("a", 65)} {
		if CheckName(bad) == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
	}
	if CheckScope("act:always") != nil || CheckScope("write") == nil {
		t.Error("CheckScope")
	}
}
