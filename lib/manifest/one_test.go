package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadAgent(t *testing.T) {
	a, err := LoadAgent(LoadOptions{}, "claude")
	if err != nil || a == nil || !a.Bundled || a.Name != "claude" {
		t.Fatalf("bundled: %+v %v", a, err)
	}
	if a, err := LoadAgent(LoadOptions{}, "nosuch"); a != nil || err != nil {
		t.Fatalf("unknown: %+v %v", a, err)
	}
	if a, err := LoadAgent(LoadOptions{}, "../etc/passwd"); a != nil || err != nil {
		t.Fatalf("path: %+v %v", a, err)
	}
	dir := t.TempDir()
	own := "min_engine_version = \"0.1\"\n[identity]\nprocess_names = [\"mine\"]\n[capture]\n"
	if err := os.WriteFile(filepath.Join(dir, "claude.toml"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err = LoadAgent(LoadOptions{UserDir: dir}, "claude")
	if err != nil || a == nil || a.Bundled || a.ProcessNames[0] != "mine" {
		t.Fatalf("shadowed: %+v %v", a, err)
	}
	if a, _ := LoadAgent(LoadOptions{ManifestDir: dir}, "codex"); a != nil {
		t.Fatal("a closed manifest dir fell back to the bundled codex")
	}
}
