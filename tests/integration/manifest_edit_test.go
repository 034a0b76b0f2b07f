package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A manifest edit reaches a quiet pane with no daemon (issue 27, item 3):
// the stored verdict is reused while the pane prints nothing, until the
// rules that read it change; the first ls after the edit reads the screen
// under the new rules, and the one after it is quiet again.
func TestManifestEditReachesAQuietPane(t *testing.T) {
	e := newEnv(t, "")
	src, err := os.ReadFile(filepath.Join("..", "..", "manifests", "agents", "claude.toml"))
	if err != nil {
		t.Fatal(err)
	}
	rule := "label = \"option-1-cursor\"\nstate = \"blocked\"\ndetail = \"permission\""
	if !strings.Contains(string(src), rule) {
		t.Fatalf("claude.toml has no %q", rule)
	}
	dir := filepath.Join(e.home, ".config", "tma", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(detail string) {
		t.Helper()
		f := filepath.Join(dir, "claude.toml")
		body := strings.Replace(string(src), rule, strings.Replace(rule, `"permission"`, `"`+detail+`"`, 1), 1)
		if err := os.WriteFile(f+".tmp", []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(f+".tmp", f); err != nil {
			t.Fatal(err)
		}
	}
	write("custom-8")
	a := e.s.StartAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/custom-8 attn")
	// Quiet: once the second of the last stamp has passed, ls reuses it.
	timing := func() string {
		t.Helper()
		_, errs, code := e.tma("ls", "--pane", a.Pane, "--debug-timing")
		if code != 0 {
			t.Fatalf("ls --debug-timing: exit %d: %s", code, errs)
		}
		return errs
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(timing(), "capture-skipped (quiet)") {
		if time.Now().After(deadline) {
			t.Fatalf("the pane never went quiet:\n%s", timing())
		}
		time.Sleep(300 * time.Millisecond)
	}

	write("custom-7")
	if errs := timing(); strings.Contains(errs, "capture-skipped") {
		t.Errorf("the first ls after the edit reused the stored verdict:\n%s", errs)
	}
	if got := e.ls()[a.Pane]; got != "blocked/custom-7 attn" {
		t.Errorf("after the edit: %q, want blocked/custom-7 attn", got)
	}
	if errs := timing(); !strings.Contains(errs, "capture-skipped (quiet)") {
		t.Errorf("the edit invalidated the skip for good, not once:\n%s", errs)
	}
}
