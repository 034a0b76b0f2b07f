package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShimKeepsThePayloadWhole: the statusline shim hands the wrapped
// command and tma event the payload byte for byte, trailing newlines
// included (issue 27 item 19: `_tma_in=$(cat)` dropped them), and reads
// back as a shim; the shim earlier builds wrote reads as one too, so
// install refreshes it and uninstall restores what it wrapped.
func TestShimKeepsThePayloadWhole(t *testing.T) {
	dir := t.TempDir()
	tma := filepath.Join(dir, "tma")
	event := filepath.Join(dir, "event")
	if err := os.WriteFile(tma, []byte("#!/bin/sh\ncat >'"+event+".tmp' && mv '"+event+".tmp' '"+event+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wrapped := filepath.Join(dir, "wrapped")
	orig := "cat > '" + wrapped + "'; echo 'my status'"
	cmd := ShimCommand(tma, "claude", orig)
	if p, agent, o, ok := ParseShim(cmd); !ok || p != tma || agent != "claude" || o != orig {
		t.Fatalf("ParseShim(ShimCommand) = %q %q %q %v", p, agent, o, ok)
	}
	for _, payload := range []string{"a\\nb %s\n\n", `{"model":{"id":"x"}}`, "", "\n"} {
		os.Remove(event)
		sh := exec.Command("sh", "-c", cmd)
		sh.Stdin = strings.NewReader(payload)
		out, err := sh.Output()
		if err != nil || string(out) != "my status\n" {
			t.Fatalf("the shim on %q: %v %q", payload, err, out)
		}
		if got, _ := os.ReadFile(wrapped); string(got) != payload {
			t.Errorf("the wrapped command got %q, want %q", got, payload)
		}
		var got []byte
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if got, err = os.ReadFile(event); err == nil {
				break
			}
		}
		if string(got) != payload {
			t.Errorf("tma event got %q, want %q", got, payload)
		}
	}
	old := `_TMA_BIN='/x/tma'; [ -x "$_TMA_BIN" ] || _TMA_BIN=tma; _tma_in=$(cat); (printf '%s' "$_tma_in" | "$_TMA_BIN" event --agent claude --kind context >/dev/null 2>&1 &); printf '%s' "$_tma_in" | sh -c 'my-status'`
	if p, agent, o, ok := ParseShim(old); !ok || p != "/x/tma" || agent != "claude" || o != "my-status" {
		t.Errorf("an earlier build's shim: %q %q %q %v", p, agent, o, ok)
	}
	if ShimCommand("/x/tma", "claude", "my-status") == old {
		t.Error("the shim is still the one that drops trailing newlines")
	}
}
