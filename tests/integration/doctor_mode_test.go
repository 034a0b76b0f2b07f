package integration

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestDoctorNamesTheMode: doctor reads the agent panes' screens and names the permission mode
// Claude's footer shows ([[modes]] in claude.toml, issue 30 item 2): auto on one pane, none
// where the footer names no mode. The footer is 2.1.332's as captured
// (fixtures/claude/idle-mode-auto-*). Doctor stays read-only.
func TestDoctorNamesTheMode(t *testing.T) {
	e := newEnv(t, "")
	auto := e.s.StartAgent("claude", screenOf("✳ Probe", "● Done.\n\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  ⏵⏵ auto mode on (shift+tab to cycle)\n"))
	plain := e.s.StartAgent("claude", claudeIdle)
	out, errs, code := e.tma("doctor")
	if code != 0 {
		t.Fatalf("doctor: %d %s", code, errs)
	}
	re := `(?m)^  ` + regexp.QuoteMeta(auto.Pane) + `\s+claude .*\n(       .*\n)*?       mode: auto \(the screen: ⏵⏵ auto mode on \(shift\+tab to cycle\)\)$`
	if !regexp.MustCompile(re).MatchString(out) {
		t.Errorf("doctor output lacks %s\n%s", re, out)
	}
	if strings.Count(out, "mode: ") != 1 {
		t.Errorf("a mode named for %s, whose footer names none:\n%s", plain.Pane, out)
	}
	out, _, _ = e.tma("doctor", "--json")
	var doc struct {
		Agents []struct {
			Pane string  `json:"pane"`
			Mode *string `json:"mode"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, a := range doc.Agents {
		switch {
		case a.Pane == auto.Pane && (a.Mode == nil || *a.Mode != "auto"):
			t.Errorf("%s: mode %v, want auto", a.Pane, a.Mode)
		case a.Pane == plain.Pane && a.Mode != nil:
			t.Errorf("%s: mode %q, want null", a.Pane, *a.Mode)
		}
	}
	if e.s.Option(auto.Pane, "@agent_stamped_at") != "" {
		t.Error("doctor stamped a pane")
	}
}
