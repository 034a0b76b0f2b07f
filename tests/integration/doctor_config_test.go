package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDoctorReportsABrokenConfig: with a config.toml that does not load,
// doctor prints its whole report (server, agents, panes) with the config's
// error as its first line and a warning, rather than the error alone
// (issue 27 item 19); --exit-code fails on it; the JSON names it.
func TestDoctorReportsABrokenConfig(t *testing.T) {
	e := newEnv(t, "[fold]\ndwell_secs = \"three\"\n")
	a := e.s.StartAgent("claude", claudeIdle)
	out, errs, code := e.tma("doctor")
	if code != 0 || !strings.HasPrefix(out, "config:  config ") || !strings.Contains(out, "config.toml:2: fold.dwell_secs: expected integer, found string — the report below uses the defaults in its place\n") {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "\nagents:  ") || !strings.Contains(out, "panes (1):") || !strings.Contains(out, "  "+a.Pane+" ") {
		t.Errorf("no report beside the error:\n%s", out)
	}
	if _, errs, code := e.tma("doctor", "--exit-code"); code != 1 || !strings.Contains(errs, "warning(s)") {
		t.Errorf("doctor --exit-code: exit %d %s", code, errs)
	}
	js, _, _ := e.tma("doctor", "--json")
	var doc struct {
		Config struct {
			Path  *string `json:"path"`
			OK    bool    `json:"ok"`
			Error *string `json:"error"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Config.OK || doc.Config.Error == nil || doc.Config.Path == nil || !strings.HasSuffix(*doc.Config.Path, "config.toml") {
		t.Errorf("doctor --json config: %+v %v\n%s", doc.Config, err, js)
	}
}
