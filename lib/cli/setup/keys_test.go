package setupcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFzfDoctorLine(t *testing.T) {
	dir := t.TempDir()
	env := func(path string) func(string) string {
		return func(k string) string {
			if k == "PATH" {
				return path
			}
			return ""
		}
	}
	line, ok := FzfDoctorLine(env(dir), "")
	if ok || !strings.Contains(line, "fzf is not installed") || !strings.Contains(line, "make install") {
		t.Errorf("missing fzf: %q %v", line, ok)
	}
	old := filepath.Join(dir, "fzf")
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho '0.44.1 (deb)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	line, ok = FzfDoctorLine(env(dir), "")
	if ok || !strings.Contains(line, "is fzf 0.44.1, tma needs 0.65 or newer") {
		t.Errorf("old fzf: %q %v", line, ok)
	}
	beside := t.TempDir()
	if err := os.WriteFile(filepath.Join(beside, "fzf"), []byte("#!/bin/sh\necho '0.65.2 (devel)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	line, ok = FzfDoctorLine(env(dir), filepath.Join(beside, "tma-setup"))
	if !ok || !strings.Contains(line, "0.65.2") || !strings.Contains(line, beside) {
		t.Errorf("pinned fzf beside tma: %q %v", line, ok)
	}
}
