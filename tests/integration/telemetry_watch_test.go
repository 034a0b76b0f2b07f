package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestContextGaugeInWatch: the context gauge a Claude pane's statusline
// shim stamped (a captured payload: 2 % of its window, the model
// claude-opus-4-8[1m]) shows in tma watch's table, in the CONTEXT and
// MODEL columns of that pane's row (the half of the "Done when"
// that ls --json does not cover; TestContextStatusline has the JSON row).
func TestContextGaugeInWatch(t *testing.T) {
	e := newEnv(t, laneOff)
	withBins(t, e)
	a := e.s.StartAgent("claude", claudeIdle)
	e.fire(a.Pane, "claude", "SessionStart", `{"session_id":"`+statuslineSession+`","source":"startup"}`)
	e.shim(a.Pane, capturedStatusline(t, 4))
	e.s.WaitFor(func() bool { return e.s.Option(a.Pane, "@agent_context_pct") == "2" }, "the gauge stamped")
	loc := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", a.Pane, "#{session_name}:#{window_index}.#{pane_index}"))

	watch := e.tmaWindow("tma watch; echo WATCH-EXIT $?; sleep 600")
	e.s.MustRun("resize-window", "-t", watch, "-x", "160", "-y", "30")
	e.attach(watch)
	e.waitScreen(watch, "rows drawn", func(s string) bool { return strings.Contains(s, loc) })
	e.s.MustRun("send-keys", "-t", watch, "p")
	scr := e.waitScreen(watch, "the table with the gauge", func(s string) bool {
		return strings.Contains(s, "CONTEXT") && strings.Contains(s, "MODEL") && strings.Contains(s, loc) && strings.Contains(s, "▱▱▱▱▱   2%")
	})
	var row string
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, loc) && strings.Contains(l, "claude") {
			row = l
		}
	}
	if !strings.Contains(row, "▱▱▱▱▱   2%") || !strings.Contains(row, "claude-opus-4-8[1m]") {
		t.Errorf("the pane's row has no gauge or model: %q\n%s", row, scr)
	}
	e.s.MustRun("send-keys", "-t", watch, "q")
	e.waitScreen(watch, "q quits", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })
}

// quotaOf is the quota object of pane's tma ls --json row.
func (e *env) quotaOf(pane string) *quotaRow {
	e.t.Helper()
	out, errs, code := e.tma("ls", "--json")
	if code != 0 {
		e.t.Fatalf("ls --json: exit %d: %s", code, errs)
	}
	var doc struct {
		Agents []struct {
			Pane  string    `json:"pane"`
			Quota *quotaRow `json:"quota"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		e.t.Fatal(err)
	}
	for _, r := range doc.Agents {
		if r.Pane == pane {
			return r.Quota
		}
	}
	e.t.Fatalf("no row for %s in %s", pane, out)
	return nil
}

type quotaRow struct {
	Pct        int64  `json:"pct"`
	Window     string `json:"window"`
	ResetsAtMS int64  `json:"resets_at_ms"`
	AtMS       int64  `json:"at_ms"`
}

// TestQuotaInRows: the account quota the real agents reported in the lab
// (lib/telemetry/testdata: Claude's statusline under a subscription-style
// login, Codex's rollout after the mock's rate-limit headers) reaches the
// pane and the ls --json row's quota object; the next payload, whose
// response carried no headers, moves the gauge and leaves the quota as it
// was.
func TestQuotaInRows(t *testing.T) {
	e := newEnv(t, laneOff)
	testdata := filepath.Join("..", "..", "lib", "telemetry", "testdata")

	claude := e.s.StartAgent("claude", claudeIdle)
	e.fire(claude.Pane, "claude", "SessionStart", `{"session_id":"454b2701-4e52-4e38-8cd7-f017f1692619","source":"startup"}`)
	e.shim(claude.Pane, read(t, filepath.Join(testdata, "claude-statusline-oauth-2.json")))
	e.s.WaitFor(func() bool { return e.s.Option(claude.Pane, "@agent_quota_pct") == "42" }, "claude's quota stamped")
	q := e.quotaOf(claude.Pane)
	at, _ := strconv.ParseInt(e.s.Option(claude.Pane, "@agent_context_at"), 10, 64)
	if q == nil || *q != (quotaRow{Pct: 42, Window: "5h", ResetsAtMS: 1796147187000, AtMS: at}) {
		t.Fatalf("claude's quota row: %+v (context at %d)", q, at)
	}
	e.shim(claude.Pane, read(t, filepath.Join(testdata, "claude-statusline-oauth-3.json")))
	e.s.WaitFor(func() bool { return e.s.Option(claude.Pane, "@agent_tokens") == "34426" }, "claude's next gauge")
	if q2 := e.quotaOf(claude.Pane); q2 == nil || *q2 != *q {
		t.Errorf("a payload without rate_limits changed the quota: %+v, was %+v", q2, q)
	}

	codex := e.s.StartAgent("codex", claudeIdle)
	rollout := filepath.Join(t.TempDir(), "rollout-2026-12-01T15-40-17-01a23243-8e2c-7fc0-8d7a-df21dbfb3dc4.jsonl")
	all := read(t, filepath.Join(testdata, "codex-rollout-quota.jsonl"))
	i := strings.Index(all, `"type":"task_complete"`)
	first := all[:i+strings.Index(all[i:], "\n")+1]
	if err := os.WriteFile(rollout, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	sessionPayload := `{"session_id":"01a23243-8e2c-7fc0-8d7a-df21dbfb3dc4","transcript_path":"` + rollout + `"`
	e.fire(codex.Pane, "codex", "SessionStart", sessionPayload+`,"source":"startup"}`)
	e.fire(codex.Pane, "codex", "Stop", sessionPayload+`}`)
	if q := e.quotaOf(codex.Pane); q == nil || *q != (quotaRow{Pct: 42, Window: "5h", ResetsAtMS: 1796147006000, AtMS: 1796139626580}) {
		t.Fatalf("codex's quota row after the QUOTA turn: %+v", q)
	}
	if err := os.WriteFile(rollout, []byte(all), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fire(codex.Pane, "codex", "Stop", sessionPayload+`}`)
	o := e.opts(codex.Pane)
	if o["@agent_tokens"] != "13482" || o["@agent_quota_pct"] != "42" || o["@agent_quota_at"] != "1796139626580" {
		t.Errorf("after the turn with null windows: %v", o)
	}
}
