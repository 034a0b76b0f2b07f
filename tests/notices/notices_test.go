package notices

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func root(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// platforms are the release's os/arch pairs, read from shell/dist.sh's
// default so a new platform is checked here too.
func platforms(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), "shell", "dist.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLATFORMS=\$\{PLATFORMS:-([^}]+)\}$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("shell/dist.sh has no PLATFORMS=${PLATFORMS:-...} default")
	}
	return strings.Fields(string(m[1]))
}

// linked lists the modules (not the main one) whose packages the
// binaries under cmd/ link on os/arch, as "path version".
func linked(t *testing.T, osArch string) []string {
	t.Helper()
	os_, arch, _ := strings.Cut(osArch, "/")
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}", "./cmd/...")
	cmd.Dir = root(t)
	cmd.Env = append(os.Environ(), "GOOS="+os_, "GOARCH="+arch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps ./cmd/... (%s): %v\n%s", osArch, err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var mods []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(mods, l) {
			mods = append(mods, l)
		}
	}
	return mods
}

// Every module linked into a tma binary on any release platform is in the
// notices at the version linked, and nothing listed is no longer linked.
func TestNoticesListWhatIsLinked(t *testing.T) {
	parts, err := Read(filepath.Join(root(t), File))
	if err != nil {
		t.Fatal(err)
	}
	listed := parts[PartTMA]
	if len(listed) == 0 {
		t.Fatalf("%s has no entries under ## %s", File, PartTMA)
	}
	var all []string
	for _, p := range platforms(t) {
		for _, m := range linked(t, p) {
			if !slices.Contains(all, m) {
				all = append(all, m)
			}
		}
	}
	if len(all) == 0 {
		t.Fatal("go list -deps named no module at all")
	}
	missing, stale := Diff(listed, all)
	for _, m := range missing {
		t.Errorf("%s is linked into tma's binaries but not in %s: add \"### %s (<SPDX id>)\" and its licence text under ## %s", m, File, m, PartTMA)
	}
	for _, m := range stale {
		t.Errorf("%s is in %s but no binary links it (at that version): remove or update its entry", m, File)
	}
}

// Each entry carries a licence text, once; the fzf part starts with fzf
// at the version the Makefile pins (what make dist builds).
func TestNoticesEntries(t *testing.T) {
	r := root(t)
	parts, err := Read(filepath.Join(r, File))
	if err != nil {
		t.Fatal(err)
	}
	for part, ms := range parts {
		seen := map[string]bool{}
		for _, m := range ms {
			if seen[m.Path] {
				t.Errorf("## %s lists %s twice", part, m.Path)
			}
			seen[m.Path] = true
			if !strings.Contains(m.Text, "Copyright") && !strings.Contains(m.Text, "Permission is hereby granted") {
				t.Errorf("%s: the licence text is not one (no copyright or grant):\n%s", m.Key(), m.Text)
			}
		}
	}
	mk, err := os.ReadFile(filepath.Join(r, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	v := regexp.MustCompile(`(?m)^FZF_VERSION\s*:=\s*(\S+)$`).FindSubmatch(mk)
	if v == nil {
		t.Fatal("the Makefile pins no FZF_VERSION")
	}
	fz := parts[PartFZF]
	if len(fz) == 0 || fz[0].Key() != "github.com/junegunn/fzf v"+string(v[1]) {
		t.Errorf("## %s does not start with github.com/junegunn/fzf v%s (the Makefile's FZF_VERSION): %v", PartFZF, v[1], fz)
	}
	lic, err := os.ReadFile(filepath.Join(r, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(lic), "MIT License\n\nCopyright (c) 2026 the tma authors\n") {
		t.Errorf("LICENSE is not tma's MIT licence:\n%s", lic)
	}
}

// The check itself: a module linked and not listed, and one listed and no
// longer linked (or at another version), are each named.
func TestDiff(t *testing.T) {
	listed := []Module{{Path: "a.example/x", Version: "v1.0.0"}, {Path: "a.example/y", Version: "v2.0.0"}}
	for _, c := range []struct {
		name           string
		linked         []string
		missing, stale []string
	}{
		{"same", []string{"a.example/x v1.0.0", "a.example/y v2.0.0"}, nil, nil},
		{"new module", []string{"a.example/x v1.0.0", "a.example/y v2.0.0", "a.example/z v0.1.0"}, []string{"a.example/z v0.1.0"}, nil},
		{"dropped", []string{"a.example/x v1.0.0"}, nil, []string{"a.example/y v2.0.0"}},
		{"bumped", []string{"a.example/x v1.1.0", "a.example/y v2.0.0"}, []string{"a.example/x v1.1.0"}, []string{"a.example/x v1.0.0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			missing, stale := Diff(listed, c.linked)
			if !slices.Equal(missing, c.missing) || !slices.Equal(stale, c.stale) {
				t.Errorf("Diff = %q, %q; want %q, %q", missing, stale, c.missing, c.stale)
			}
		})
	}
}

// Read refuses a file it cannot hold the build to.
func TestReadRefusesMalformed(t *testing.T) {
	for name, text := range map[string]string{
		"no version":    "## " + PartTMA + "\n\n### a.example/x (MIT)\n\n```text\nCopyright x\n```\n",
		"no text":       "## " + PartTMA + "\n\n### a.example/x v1.0.0 (MIT)\n\n### a.example/y v1.0.0 (MIT)\n\n```text\nCopyright y\n```\n",
		"unclosed":      "## " + PartTMA + "\n\n### a.example/x v1.0.0 (MIT)\n\n```text\nCopyright x\n",
		"under no part": "### a.example/x v1.0.0 (MIT)\n\n```text\nCopyright x\n```\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), File)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(p); err == nil {
				t.Error("Read accepted it")
			}
		})
	}
}
