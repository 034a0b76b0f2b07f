package telemetry

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/tmux"
)

var update = flag.Bool("update", false, "rewrite testdata/readings.golden")

// atReceived dates the payloads that carry no time of their own, as a hook
// receiving them would.
const atReceived = 1796200000000

// stamped renders a reading as the options it stamps, one line.
func stamped(r Reading) string {
	var b strings.Builder
	for i, s := range r.Sets(r.At(atReceived)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s.Unset {
			b.WriteString(s.Name + "=(unset)")
			continue
		}
		b.WriteString(s.Name + "=" + s.Value)
	}
	if b.Len() == 0 {
		return "(nothing)"
	}
	return b.String()
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// piFiles hold the agent_settled payloads of the lab's pi hook logs
// (testdata/README.md): the extension before it forwarded the model, and
// after.
var piFiles = []string{"testdata/pi-agent-settled.jsonl", "testdata/pi-agent-settled-model.jsonl"}

// piPayloads are the agent_settled payloads of one of piFiles.
func piPayloads(t *testing.T, file string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, l := range bytes.Split(read(t, file), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, json.RawMessage(l))
		}
	}
	if len(out) == 0 {
		t.Fatal("no pi payloads")
	}
	return out
}

// TestGolden parses every captured payload and compares the options it
// would stamp with testdata/readings.golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	var lines []string
	files, _ := filepath.Glob("testdata/claude-statusline-*.json")
	sort.Strings(files)
	for _, f := range files {
		r, err := Parse(ClaudeStatusline, read(t, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		lines = append(lines, filepath.Base(f)+": "+stamped(r))
	}
	r, err := Parse(CodexRollout, read(t, "testdata/codex-rollout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, "codex-rollout.jsonl: "+stamped(r))
	quota := read(t, "testdata/codex-rollout-quota.jsonl")
	first, _ := quotaTurn(t, quota)
	for _, c := range []struct {
		name string
		b    []byte
	}{{"codex-rollout-quota.jsonl, the QUOTA turn", first}, {"codex-rollout-quota.jsonl", quota}} {
		r, err := Parse(CodexRollout, c.b)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, c.name+": "+stamped(r))
	}
	for _, f := range piFiles {
		label := "pi agent_settled"
		if f != piFiles[0] {
			label = strings.TrimSuffix(filepath.Base(f), ".jsonl")
		}
		for i, p := range piPayloads(t, f) {
			r, err := Parse(PiContext, p)
			if err != nil {
				t.Fatalf("%s payload %d: %v", f, i+1, err)
			}
			lines = append(lines, fmt.Sprintf("%s %d: %s", label, i+1, stamped(r)))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	const golden = "testdata/readings.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := string(read(t, golden)); got != want {
		t.Errorf("readings differ from %s (go test -update rewrites it):\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestClaudeFields checks each stamped value against the payload's own
// fields, decoded here without the parser.
func TestClaudeFields(t *testing.T) {
	files, _ := filepath.Glob("testdata/claude-statusline-*.json")
	if len(files) < 2 {
		t.Fatal("the captured statusline payloads are missing")
	}
	quota := 0
	for _, f := range files {
		raw := read(t, f)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		r, err := Parse(ClaudeStatusline, raw)
		if err != nil {
			t.Fatal(err)
		}
		cw := m["context_window"].(map[string]any)
		if cw["used_percentage"] == nil {
			if r.ContextPct != nil || r.Tokens != nil {
				t.Errorf("%s: no usage reported, yet the reading has a gauge (%v, %v)", f, r.ContextPct, r.Tokens)
			}
		} else {
			if want := int64(math.Round(cw["used_percentage"].(float64))); r.ContextPct == nil || *r.ContextPct != want {
				t.Errorf("%s: context %v, want %d", f, r.ContextPct, want)
			}
			u := cw["current_usage"].(map[string]any)
			want := int64(u["input_tokens"].(float64) + u["cache_creation_input_tokens"].(float64) + u["cache_read_input_tokens"].(float64))
			if r.Tokens == nil || *r.Tokens != want {
				t.Errorf("%s: tokens %v, want %d (the window's current input)", f, r.Tokens, want)
			}
		}
		if want := m["model"].(map[string]any)["id"].(string); r.Model != want {
			t.Errorf("%s: model %q, want %q", f, r.Model, want)
		}
		if want := m["cost"].(map[string]any)["total_cost_usd"].(float64); r.CostUSD == nil || *r.CostUSD != want {
			t.Errorf("%s: cost %v, want %v", f, r.CostUSD, want)
		}
		if r.AtMS != 0 {
			t.Errorf("%s: a statusline carries no time: %+v", f, r)
		}
		// rate_limits: only the subscription login's payload after the
		// QUOTA answer has them (testdata/README.md); the fuller window.
		var want *Quota
		if rl, ok := m["rate_limits"].(map[string]any); ok {
			for _, kw := range [][2]string{{"five_hour", "5h"}, {"seven_day", "7d"}} {
				w, _ := rl[kw[0]].(map[string]any)
				if w == nil {
					continue
				}
				p := int64(math.Round(w["used_percentage"].(float64)))
				if want == nil || p > want.Pct {
					want = &Quota{Pct: p, Window: kw[1], ResetsAtMS: int64(w["resets_at"].(float64)) * 1000}
				}
			}
		}
		switch {
		case want == nil && r.Quota != nil:
			t.Errorf("%s: no rate_limits, yet quota %+v", f, r.Quota)
		case want != nil && (r.Quota == nil || *r.Quota != *want):
			t.Errorf("%s: quota %+v, want %+v", f, r.Quota, want)
		}
		if want != nil {
			quota++
		}
	}
	if quota == 0 {
		t.Error("no captured statusline payload carries rate_limits")
	}
}

func TestCodexFields(t *testing.T) {
	raw := read(t, "testdata/codex-rollout.jsonl")
	var last map[string]any
	var lastAt string
	for _, l := range bytes.Split(raw, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(l, &m) != nil {
			continue
		}
		if p, ok := m["payload"].(map[string]any); ok && p["type"] == "token_count" {
			last, lastAt = p["info"].(map[string]any), m["timestamp"].(string)
		}
	}
	if last == nil {
		t.Fatal("the captured rollout has no token_count")
	}
	r, err := Parse(CodexRollout, raw)
	if err != nil {
		t.Fatal(err)
	}
	tok := int64(last["last_token_usage"].(map[string]any)["total_tokens"].(float64))
	win := int64(last["model_context_window"].(float64))
	spend := int64(last["total_token_usage"].(map[string]any)["total_tokens"].(float64))
	if tok == spend {
		t.Fatal("the capture's two turns should make the session total differ from the last request's")
	}
	if r.Tokens == nil || *r.Tokens != tok {
		t.Errorf("tokens %v, want the last request's %d (not the session's %d)", r.Tokens, tok, spend)
	}
	if want := int64(math.Round(float64(tok) * 100 / float64(win))); r.ContextPct == nil || *r.ContextPct != want {
		t.Errorf("context %v, want %d", r.ContextPct, want)
	}
	at, _ := time.Parse(time.RFC3339Nano, lastAt)
	if r.AtMS != at.UnixMilli() {
		t.Errorf("at %d, want the record's own time %d", r.AtMS, at.UnixMilli())
	}
	if r.Model != "mock-model" || r.Quota != nil || r.CostUSD != nil {
		t.Errorf("model %q quota %+v cost %v", r.Model, r.Quota, r.CostUSD)
	}
}

// quotaTurn is the QUOTA turn of testdata/codex-rollout-quota.jsonl (its
// lines up to the first task_complete) and the rate_limits of its
// token_count, as Codex wrote them.
func quotaTurn(t *testing.T, raw []byte) ([]byte, map[string]any) {
	t.Helper()
	var rl map[string]any
	for i, l := range bytes.SplitAfter(raw, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(l, &m) != nil {
			continue
		}
		p, _ := m["payload"].(map[string]any)
		switch p["type"] {
		case "token_count":
			rl, _ = p["rate_limits"].(map[string]any)
		case "task_complete":
			return bytes.Join(bytes.SplitAfter(raw, []byte("\n"))[:i+1], nil), rl
		}
	}
	t.Fatal("the quota rollout has no task_complete")
	return nil, nil
}

// TestCodexQuota: the rate-limit windows Codex 0.171.0 put in its
// token_count from the response headers the lab's mock sent on QUOTA
// (two windows, 5h and 7d) stamp the fuller one as @agent_quota_*, its
// reset time from the record's resets_at (epoch seconds) and its evidence
// time the record's own. The next turn's response carried no headers and
// Codex wrote null windows: no quota is read from it, so the pane keeps
// what it has.
func TestCodexQuota(t *testing.T) {
	raw := read(t, "testdata/codex-rollout-quota.jsonl")
	turn, rl := quotaTurn(t, raw)
	primary, _ := rl["primary"].(map[string]any)
	secondary, _ := rl["secondary"].(map[string]any)
	if primary == nil || secondary == nil {
		t.Fatalf("the QUOTA turn's token_count has no windows: %v", rl)
	}
	if primary["used_percent"].(float64) <= secondary["used_percent"].(float64) || primary["window_minutes"].(float64) != 300 {
		t.Fatalf("the capture should have the 5h window fuller than the 7d one: %v", rl)
	}
	r, err := Parse(CodexRollout, turn)
	if err != nil {
		t.Fatal(err)
	}
	want := Quota{Pct: int64(math.Round(primary["used_percent"].(float64))), Window: "5h", ResetsAtMS: int64(primary["resets_at"].(float64)) * 1000}
	if r.Quota == nil || *r.Quota != want {
		t.Fatalf("quota %+v, want %+v", r.Quota, want)
	}
	sets := map[string]string{}
	for _, s := range r.Sets(r.At(atReceived)) {
		sets[s.Name] = s.Value
	}
	if sets[OptQuotaPct] != "42" || sets[OptQuotaWindow] != "5h" || sets[OptQuotaResetsAt] != strconv.FormatInt(want.ResetsAtMS, 10) || sets[OptQuotaAt] != strconv.FormatInt(r.AtMS, 10) || r.AtMS == 0 {
		t.Errorf("the quota options: %v (reading at %d)", sets, r.AtMS)
	}
	later, err := Parse(CodexRollout, raw)
	if err != nil {
		t.Fatal(err)
	}
	if later.Quota != nil || later.Tokens == nil || later.AtMS <= r.AtMS {
		t.Errorf("the next turn (null windows): quota %+v tokens %v at %d, want no quota and a newer gauge", later.Quota, later.Tokens, later.AtMS)
	}
}

// TestRolloutTail reads the rollout's end through the tail reader with the
// cut falling inside a line, as it does on a long session.
func TestRolloutTail(t *testing.T) {
	raw := read(t, "testdata/codex-rollout.jsonl")
	whole, _ := Parse(CodexRollout, raw)
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-2026-12-01T11-04-43-x.jsonl")
	long := append([]byte(`{"timestamp":"2026-12-01T11:04:43.978Z","type":"session_meta","payload":{"base_instructions":"`+strings.Repeat("x", 2*TailBytes)+`"}}`+"\n"), raw...)
	if err := os.WriteFile(path, long, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRollout(path)
	if err != nil {
		t.Fatal(err)
	}
	if stamped(got) != stamped(whole) {
		t.Errorf("tail read %s, want %s", stamped(got), stamped(whole))
	}
	// The cut lands inside the long first line: it is skipped, not fatal.
	if tail, _ := ReadTail(path, TailBytes); int64(len(tail)) != TailBytes || bytes.HasPrefix(tail, []byte(`{"timestamp"`)) {
		t.Errorf("tail of %d bytes, starting %q", len(tail), tail[:min(20, len(tail))])
	}
	for _, p := range []string{"/etc/passwd", "rollout-x.jsonl", filepath.Join(dir, "notes.jsonl")} {
		if _, err := ReadRollout(p); err == nil {
			t.Errorf("%s read as a rollout", p)
		}
	}
	// A rollout whose turn has not been answered yet reports nothing.
	first := bytes.SplitN(raw, []byte("\n"), 2)[0]
	if r, err := Parse(CodexRollout, first); err != nil || !r.Empty() {
		t.Errorf("a rollout with no token_count: %+v %v", r, err)
	}
}

func TestPiFields(t *testing.T) {
	models := 0
	for _, f := range piFiles {
		for i, p := range piPayloads(t, f) {
			piField(t, fmt.Sprintf("%s payload %d", f, i+1), p, &models)
		}
	}
	if models == 0 {
		t.Error("no captured pi payload names its model")
	}
	// The bare usage object reads the same; a null usage (pi after a
	// compaction, documented) reports nothing.
	r, err := Parse(PiContext, []byte(`{"tokens":64000,"contextWindow":128000,"percent":null}`))
	if err != nil || r.ContextPct == nil || *r.ContextPct != 50 || *r.Tokens != 64000 {
		t.Errorf("bare usage: %+v %v", r, err)
	}
	if r, err := Parse(PiContext, []byte(`{"context":{"tokens":null,"contextWindow":128000,"percent":null}}`)); err != nil || r.Gauge() {
		t.Errorf("null usage: %+v %v", r, err)
	}
}

// piField checks one pi payload's reading against its own fields: tokens,
// the rounded percent, the model id where the extension sent one, and the
// extension's own time.
func piField(t *testing.T, what string, p json.RawMessage, models *int) {
	t.Helper()
	var m struct {
		Context struct {
			Tokens  int64   `json:"tokens"`
			Percent float64 `json:"percent"`
		} `json:"context"`
		Model string `json:"model"`
		AtMS  int64  `json:"tma_at_ms"`
	}
	if err := json.Unmarshal(p, &m); err != nil {
		t.Fatal(err)
	}
	r, err := Parse(PiContext, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tokens == nil || *r.Tokens != m.Context.Tokens {
		t.Errorf("%s: tokens %v, want %d", what, r.Tokens, m.Context.Tokens)
	}
	if want := int64(math.Round(m.Context.Percent)); r.ContextPct == nil || *r.ContextPct != want {
		t.Errorf("%s: context %v, want %d", what, r.ContextPct, want)
	}
	if r.Model != m.Model {
		t.Errorf("%s: model %q, want %q", what, r.Model, m.Model)
	}
	if m.Model != "" {
		*models++
	}
	if r.AtMS != m.AtMS {
		t.Errorf("%s: at %d, want the extension's %d", what, r.AtMS, m.AtMS)
	}
}

// TestDocumentedShapes covers shapes no lab capture carries: Claude's
// rate_limits with the 7-day window the fuller one (the captures have the
// 5-hour one fuller), Cursor's statusline, and the resets_in_seconds of
// Codex releases before resets_at. The inputs follow each agent's
// documented format (docs/telemetry.md marks what is unproven); they are
// not captures.
func TestDocumentedShapes(t *testing.T) {
	r, err := Parse(ClaudeStatusline, []byte(`{"model":{"id":"claude-x","display_name":"X"},"context_window":{"context_window_size":200000,"used_percentage":81.6,"current_usage":{"input_tokens":160000,"cache_creation_input_tokens":1000,"cache_read_input_tokens":2000}},"rate_limits":{"five_hour":{"used_percentage":42,"resets_at":1796130000},"seven_day":{"used_percentage":61.4,"resets_at":1796500000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := stamped(r); got != "@agent_context_pct=82 @agent_context_at=1796200000000 @agent_tokens=163000 @agent_tokens_at=1796200000000 @agent_quota_pct=61 @agent_quota_window=7d @agent_quota_resets_at=1796500000000 @agent_quota_at=1796200000000 @agent_model=claude-x" {
		t.Errorf("claude with rate limits: %s", got)
	}
	// No percent, a usage and a window: the ratio; no window: no gauge.
	r, _ = Parse(CursorStatusline, []byte(`{"model":{"display_name":"Claude 4 Opus"},"context_window":{"context_window_size":200000,"current_usage":{"input_tokens":50000}}}`))
	if got := stamped(r); got != "@agent_context_pct=25 @agent_context_at=1796200000000 @agent_tokens=50000 @agent_tokens_at=1796200000000 @agent_model=Claude 4 Opus" {
		t.Errorf("cursor: %s", got)
	}
	r, _ = Parse(CursorStatusline, []byte(`{"context_window":{"current_usage":{"input_tokens":50000}}}`))
	if r.ContextPct != nil || r.Tokens == nil {
		t.Errorf("no window: %+v", r)
	}
	line := `{"timestamp":"2026-12-01T11:05:52.767Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":100000},"model_context_window":200000},"rate_limits":{"primary":{"used_percent":12.5,"window_minutes":300,"resets_at":1796130000},"secondary":{"used_percent":80,"window_minutes":10080,"resets_in_seconds":3600}}}}`
	r, _ = Parse(CodexRollout, []byte(line))
	if r.Quota == nil || *r.Quota != (Quota{Pct: 80, Window: "7d", ResetsAtMS: r.AtMS + 3600_000}) || *r.ContextPct != 50 {
		t.Errorf("codex rate limits: %+v %+v", r, r.Quota)
	}
}

func TestBadPayloads(t *testing.T) {
	for _, f := range Formats {
		if f == CodexRollout {
			continue // lines that do not parse are skipped: a tail read cuts one
		}
		_, err := Parse(f, []byte("not json"))
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: bad payload gave %v, want an error naming the format", f, err)
		}
	}
	if _, err := Parse("jsonl-of-dreams", nil); err == nil {
		t.Error("unknown format accepted")
	}
	// Hostile values stay within what a pane option may hold.
	r, err := Parse(ClaudeStatusline, []byte(`{"model":{"id":"a\u0007b\nc`+strings.Repeat("é", 80)+`"},"context_window":{"used_percentage":1e308},"cost":{"total_cost_usd":-3}}`))
	if err != nil {
		t.Fatal(err)
	}
	if *r.ContextPct != 100 || r.CostUSD != nil || len(r.Model) > ModelMax || strings.ContainsAny(r.Model, "\a\n") {
		t.Errorf("hostile payload: %+v", r)
	}
	for _, s := range r.Sets(1) {
		if tmux.CheckValue(s.Value) != nil {
			t.Errorf("%s=%q is not writable", s.Name, s.Value)
		}
	}
}

// TestFormatsMatchManifests: every format a manifest may name has a parser.
func TestFormatsMatchManifests(t *testing.T) {
	if !slices.Equal(Formats, manifest.TelemetryFormats) {
		t.Errorf("parsers %v, manifest formats %v", Formats, manifest.TelemetryFormats)
	}
	for _, f := range Formats {
		if !Known(f) || !CarriesWindow(f) {
			t.Errorf("%s", f)
		}
	}
}
