package pick

import (
	"os"
	"path/filepath"
	"testing"
)

// Tool finds a binary as the dispatcher does: beside it first, else on PATH.
func TestTool(t *testing.T) {
	beside, onPath := t.TempDir(), t.TempDir()
	mk := func(dir, name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	disp := mk(beside, "tma", 0o755)
	if got := Tool(disp, "tma-act", onPath); got != "" {
		t.Errorf("no tma-act anywhere: %q", got)
	}
	pathAct := mk(onPath, "tma-act", 0o755)
	if got := Tool(disp, "tma-act", onPath); got != pathAct {
		t.Errorf("on PATH: %q", got)
	}
	if got := Tool("tma", "tma-act", onPath); got != pathAct {
		t.Errorf("dispatcher by name: %q", got)
	}
	besideAct := mk(beside, "tma-act", 0o755)
	if got := Tool(disp, "tma-act", onPath); got != besideAct {
		t.Errorf("beside wins: %q", got)
	}
	if err := os.Chmod(besideAct, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Tool(disp, "tma-act", onPath); got != pathAct {
		t.Errorf("a non-executable beside is skipped: %q", got)
	}
}
