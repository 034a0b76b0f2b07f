package act

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tmaproject/tma/lib/testkit"
)

func mustParse(t *testing.T, stem, src string) *Action {
	t.Helper()
	a, err := Parse(stem, stem+".toml", []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", stem, err)
	}
	return a
}

func TestBundled(t *testing.T) {
	as, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Action{}
	for _, a := range as {
		got[a.Name] = a
	}
	// The claude reply lane's arms: approve allows, deny denies, nothing else replies.
	for name, a := range got {
		want := map[string]string{"approve": "allow", "deny": "deny"}[name]
		if arm, ok := a.Hook["claude"]; arm.Reply != want || ok != (want != "") || len(a.Hook) > 1 {
			t.Errorf("%s: [hook] = %v, want claude = %q", name, a.Hook, want)
		}
	}
	want := map[string][]string{
		"approve":   {"claude", "codex", "copilot", "crush", "gemini", "opencode", "qwen"},
		"deny":      {"claude", "codex", "copilot", "crush", "gemini", "opencode", "qwen"},
		"interrupt": {"claude", "codex", "copilot", "gemini", "pi", "qwen"},
		"compact":   {"claude"},
		"steer":     {"claude", "codex", "gemini", "opencode", "pi"},
		"steer_now": {"claude", "codex"},
		"answer":    {"claude", "codex", "copilot", "crush", "gemini", "opencode", "pi", "qwen"},
		"dismiss":   {"claude", "codex", "copilot", "crush", "gemini", "opencode", "pi"},
	}
	if len(got) != len(want) {
		t.Errorf("bundled %d actions, want %d", len(got), len(want))
	}
	for name, cov := range want {
		a := got[name]
		if a == nil {
			t.Errorf("no bundled %s", name)
			continue
		}
		if diff := cmp.Diff(cov, a.Coverage()); diff != "" {
			t.Errorf("%s coverage (-want +got):\n%s", name, diff)
		}
		if a.Confirm {
			t.Errorf("%s is confirm = true: a script or the menu could not drive it", name)
		}
	}
	// The sequences every surface sends, pinned: each is proven in the lab
	// (docs/actions.md). A change here must come with new evidence.
	for agent, seq := range map[string]string{"claude": "1", "codex": "Enter", "gemini": "Enter", "opencode": "Enter"} {
		if g := strings.Join(got["approve"].Keys[agent], " "); g != seq {
			t.Errorf("approve %s = %q, want %q", agent, g, seq)
		}
		if g := strings.Join(got["deny"].Keys[agent], " "); g != "Escape" {
			t.Errorf("deny %s = %q, want Escape", agent, g)
		}
	}
	if d := got["approve"].When.Detail; len(d) != 1 || d[0] != "permission" {
		t.Errorf("approve must be gated on detail permission, got %v", d)
	}
	// dismiss: Escape is every question dialog's cancel key (the lab's
	// idle-after-reject-question captures); OpenCode's server takes its own
	// reject. Gated on question and input (a free-text box) only, so it
	// never lands on a permission; answer stays on question alone.
	for _, agent := range got["dismiss"].Coverage() {
		if g := strings.Join(got["dismiss"].Keys[agent], " "); g != "Escape" {
			t.Errorf("dismiss %s = %q, want Escape", agent, g)
		}
	}
	if d := got["dismiss"].When; strings.Join(d.Detail, ",") != "question,input" || len(d.State) != 1 || d.State[0] != "blocked" {
		t.Errorf("dismiss must be gated on blocked/question and blocked/input, got %+v", d)
	}
	if d := got["answer"].When.Detail; strings.Join(d, ",") != "question" {
		t.Errorf("answer must be gated on question alone (its option keys submit an empty text box), got %v", d)
	}
	if api := got["dismiss"].API; len(api) != 1 || api["opencode"] != (APIArm{Op: OpQuestionReject}) {
		t.Errorf("dismiss [api] = %v, want opencode question-reject alone", api)
	}
	for name, a := range got {
		if arm, ok := a.API["opencode"]; ok && arm.Op == OpQuestionReject && name != "dismiss" {
			t.Errorf("%s carries question-reject: only dismiss rejects a question", name)
		}
	}
	if got["compact"].When.ContextPctMin == nil || *got["compact"].When.ContextPctMin != 75 {
		t.Errorf("compact must need context >= 75")
	}
	if got["steer"].Arm("cursor") || got["interrupt"].Arm("opencode") {
		t.Errorf("an agent without evidence must have no arm")
	}
}

func TestParseErrors(t *testing.T) {
	head := "min_engine_version = \"0.1\"\nname = \"x\"\nlabel = \"X\"\n"
	cases := []struct{ name, src, want string }{
		{"no version", "name = \"x\"", "missing min_engine_version"},
		{"newer engine", "min_engine_version = \"9.0\"\nbogus = 1", "upgrade tma"},
		{"bad toml", head + "kind = ", "TOML parse error at line 4"},
		{"unknown key", head + "kind = \"keys\"\ncolour = 1\n[keys]\nclaude = [\"Enter\"]", "unknown key colour"},
		{"unknown when key", head + "kind = \"keys\"\nwhen = { mood = \"x\" }\n[keys]\nclaude = [\"Enter\"]", "unknown key when.mood"},
		{"name mismatch", strings.Replace(head, `name = "x"`, `name = "y"`, 1) + "kind = \"exec\"\ncommand = \"true\"", `name: "y" must equal the file stem "x"`},
		{"no label", "min_engine_version = \"0.1\"\nname = \"x\"\nkind = \"exec\"\ncommand = \"true\"", "missing label"},
		{"bad kind", head + "kind = \"mouse\"", `kind: "mouse" is not one of keys, exec, text`},
		{"bad state", head + "kind = \"exec\"\ncommand = \"true\"\nwhen = { state = [\"done\"] }", `when.state: "done"`},
		{"bad pct", head + "kind = \"exec\"\ncommand = \"true\"\nwhen = { context_pct_min = 120 }", "when.context_pct_min: 120"},
		{"bad requires", head + "kind = \"exec\"\ncommand = \"true\"\nrequires = [\"tty\"]", `requires: "tty"`},
		{"keys without keys", head + "kind = \"keys\"", "missing [keys]"},
		{"keys with command", head + "kind = \"keys\"\ncommand = \"x\"\n[keys]\nclaude = [\"Enter\"]", "command: a keys action takes [keys] only"},
		{"empty sequence", head + "kind = \"keys\"\n[keys]\nclaude = []", "keys.claude: empty key sequence"},
		{"control key", head + "kind = \"keys\"\n[keys]\nclaude = [\"a\\nb\"]", "keys.claude"},
		{"exec without command", head + "kind = \"exec\"", "missing command"},
		{"exec bad timeout", head + "kind = \"exec\"\ncommand = \"true\"\ntimeout_ms = 0", "timeout_ms: 0 must be positive"},
		{"text arm shape", head + "kind = \"text\"\n[text]\nclaude = [\"Enter\"]", "text.claude: want { suffix"},
		{"text unknown arm key", head + "kind = \"text\"\n[text]\nclaude = { suffix = [\"Enter\"], loud = true }", "unknown key text.claude.loud"},
		{"detach on keys", head + "kind = \"keys\"\ndetach = true\n[keys]\nclaude = [\"Enter\"]", "detach: a keys action takes [keys] only"},
		{"detach deadline alone", head + "kind = \"exec\"\ncommand = \"true\"\ndetach_timeout_ms = 5000", "detach_timeout_ms: bounds a detached action; set detach = true"},
		{"detach with timeout_ms", head + "kind = \"exec\"\ncommand = \"true\"\ndetach = true\ntimeout_ms = 5000", "timeout_ms: bounds a synchronous action"},
		{"detach bad deadline", head + "kind = \"exec\"\ncommand = \"true\"\ndetach = true\ndetach_timeout_ms = -1", "detach_timeout_ms: -1 must be positive"},
		{"api without keys", head + "kind = \"keys\"\n[keys]\nclaude = [\"Enter\"]\n[api]\nopencode = { op = \"permission-reply\", reply = \"once\" }", "api.opencode: needs a keys.opencode sequence too"},
		{"hook agent", head + "kind = \"keys\"\n[keys]\ncodex = [\"Enter\"]\n[hook]\ncodex = { reply = \"allow\" }", "hook.codex: only claude have a hook reply lane"},
		{"hook reply", head + "kind = \"keys\"\n[keys]\nclaude = [\"1\"]\n[hook]\nclaude = { reply = \"yes\" }", `hook.claude.reply: "yes" is not one of allow, deny`},
		{"hook no reply", head + "kind = \"keys\"\n[keys]\nclaude = [\"1\"]\n[hook]\nclaude = {}", "hook.claude: missing reply"},
		{"hook unknown key", head + "kind = \"keys\"\n[keys]\nclaude = [\"1\"]\n[hook]\nclaude = { reply = \"allow\", message = \"x\" }", "unknown key hook.claude.message"},
		{"hook no keys", head + "kind = \"keys\"\n[keys]\ncodex = [\"Enter\"]\n[hook]\nclaude = { reply = \"deny\" }", "hook.claude: needs a keys.claude sequence too"},
		{"hook on text", head + "kind = \"text\"\n[text]\nclaude = { suffix = [\"Enter\"] }\n[hook]\nclaude = { reply = \"deny\" }", "[hook]: only a keys action carries a hook arm"},
	}
	for _, c := range cases {
		_, err := Parse("x", "/cfg/actions/x.toml", []byte(c.src))
		if err == nil {
			t.Errorf("%s: parsed, want an error containing %q", c.name, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "/cfg/actions/x.toml: ") {
			t.Errorf("%s: error %q, want the file and %q", c.name, err, c.want)
		}
	}
	if _, err := Parse("Bad Name", "f", []byte(head)); err == nil || !strings.Contains(err.Error(), "file stem") {
		t.Errorf("bad stem: %v", err)
	}
}

func TestParseManualExample(t *testing.T) {
	a := mustParse(t, "summarize", `# ~/.config/tma/actions/summarize.toml
min_engine_version = "0.1"
name = "summarize"
label = "Summarize progress"
kind = "exec"
agents = ["claude"]
when = { state = ["working", "idle"] }
requires = ["session"]
confirm = true
command = "~/.config/tma/actions/summarize.sh"
`)
	if a.TimeoutMS != DefaultTimeoutMS || !a.Confirm || a.Command != "~/.config/tma/actions/summarize.sh" {
		t.Errorf("parsed %+v", a)
	}
	if diff := cmp.Diff([]string{"claude"}, a.Coverage()); diff != "" {
		t.Error(diff)
	}
	txt := mustParse(t, "say", "min_engine_version = \"0.1\"\nname = \"say\"\nlabel = \"Say\"\nkind = \"text\"\n[text]\nsigils = [\"#\"]\npi = { suffix = [] }\n")
	if diff := cmp.Diff([]string{"#"}, txt.Sigils); diff != "" {
		t.Error(diff)
	}
	if !txt.Arm("pi") || txt.Arm("claude") {
		t.Errorf("text arms: %+v", txt.Text)
	}
}

func TestLoadSkipsBrokenUserFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mine.toml", "min_engine_version = \"0.1\"\nname = \"mine\"\nlabel = \"Mine\"\nkind = \"exec\"\ncommand = \"true\"\nagents = [\"claudee\"]\n")
	write("broken.toml", "min_engine_version = \"0.1\"\nname = \"broken\"\nlabel = \"B\"\nkind = \"keys\"\n")
	write("approve.toml", "min_engine_version = \"0.1\"\nname = \"approve\"\nlabel = \"Mine too\"\nkind = \"keys\"\n[keys]\nclaude = [\"1\"]\n")
	write("notes.txt", "ignored")
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Get("mine") == nil || s.Get("broken") != nil {
		t.Errorf("loaded %v", s.Names())
	}
	if a := s.Get("approve"); a == nil || a.Bundled || a.Label != "Mine too" {
		t.Errorf("a user file must shadow the bundled one by stem: %+v", a)
	}
	if len(s.Problems) != 1 || !strings.Contains(s.Problems[0].Err.Error(), "broken.toml: missing [keys]") {
		t.Errorf("problems %v", s.Problems)
	}
	known := func(n string) bool {
		return n == "claude" || n == "codex" || n == "gemini" || n == "opencode" || n == "pi" || n == "qwen" || n == "copilot" || n == "crush"
	}
	if diff := cmp.Diff([]string{`mine: names unknown agent "claudee"`}, s.UnknownAgents(known)); diff != "" {
		t.Error(diff)
	}
	if s2, err := Load(filepath.Join(dir, "missing")); err != nil || len(s2.Problems) != 0 || len(s2.Actions) != 8 {
		t.Errorf("a missing user dir is no error: %v %v", err, s2)
	}
}

func i64(v int64) *int64 { return &v }

func TestGate(t *testing.T) {
	bundled, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	exec := mustParse(t, "sum", "min_engine_version = \"0.1\"\nname = \"sum\"\nlabel = \"S\"\nkind = \"exec\"\nagents = [\"claude\"]\nrequires = [\"session\"]\nwhen = { state = [\"idle\"] }\ncommand = \"true\"\n")
	anyExec := mustParse(t, "any", "min_engine_version = \"0.1\"\nname = \"any\"\nlabel = \"A\"\nkind = \"exec\"\ncommand = \"true\"\n")
	blocked := Target{Pane: "%1", Agent: "claude", State: "blocked", Detail: "permission", Telemetry: true}
	plan := Target{Pane: "%1", Agent: "claude", State: "blocked", Detail: "plan", Telemetry: true}
	question := Target{Pane: "%1", Agent: "claude", State: "blocked", Detail: "question", Telemetry: true}
	working := Target{Pane: "%1", Agent: "claude", State: "working", Telemetry: true}
	idle := func(ctx *int64) Target {
		return Target{Pane: "%1", Agent: "claude", State: "idle", Context: ctx, Telemetry: true, Session: "s1"}
	}
	cases := []struct {
		name  string
		a     *Action
		t     Target
		force bool
		want  string
	}{
		{"approve on permission", bundled.Get("approve"), blocked, false, ""},
		{"approve on plan", bundled.Get("approve"), plan, false, ReasonGated},
		{"approve on plan forced", bundled.Get("approve"), plan, true, ""},
		{"approve on working", bundled.Get("approve"), working, false, ReasonGated},
		{"approve on pi", bundled.Get("approve"), Target{Pane: "%1", Agent: "pi", State: "blocked", Detail: "permission"}, false, ReasonNoCoverage},
		{"approve on pi forced", bundled.Get("approve"), Target{Pane: "%1", Agent: "pi", State: "blocked", Detail: "permission"}, true, ReasonNoCoverage},
		{"dismiss on question", bundled.Get("dismiss"), question, false, ""},
		{"dismiss on pi's question", bundled.Get("dismiss"), Target{Pane: "%1", Agent: "pi", State: "blocked", Detail: "question"}, false, ""},
		{"dismiss on permission", bundled.Get("dismiss"), blocked, false, ReasonGated},
		{"dismiss on setup", bundled.Get("dismiss"), Target{Pane: "%1", Agent: "claude", State: "blocked", Detail: "setup"}, false, ReasonGated},
		{"approve on question", bundled.Get("approve"), question, false, ReasonGated},
		{"deny on question", bundled.Get("deny"), question, false, ReasonGated},
		{"no agent", bundled.Get("interrupt"), Target{Pane: "%1"}, true, ReasonWrongAgent},
		{"interrupt on working", bundled.Get("interrupt"), working, false, ""},
		{"interrupt on opencode", bundled.Get("interrupt"), Target{Pane: "%1", Agent: "opencode", State: "working"}, false, ReasonNoCoverage},
		{"compact at 80", bundled.Get("compact"), idle(i64(80)), false, ""},
		{"compact at 75", bundled.Get("compact"), idle(i64(75)), false, ""},
		{"compact at 74", bundled.Get("compact"), idle(i64(74)), false, ReasonGated},
		{"compact without a reading", bundled.Get("compact"), idle(nil), false, ReasonGated},
		{"compact on codex", bundled.Get("compact"), Target{Pane: "%1", Agent: "codex", State: "idle", Telemetry: true}, false, ReasonWrongAgent},
		{"steer on idle", bundled.Get("steer"), idle(nil), false, ""},
		{"steer_now on working", bundled.Get("steer_now"), working, false, ""},
		{"steer_now on gemini", bundled.Get("steer_now"), Target{Pane: "%1", Agent: "gemini", State: "working"}, false, ReasonNoCoverage},
		{"exec wrong agent", exec, Target{Pane: "%1", Agent: "codex", State: "idle", Session: "s"}, true, ReasonWrongAgent},
		{"exec requires unmet", exec, Target{Pane: "%1", Agent: "claude", State: "idle"}, false, ReasonRequiresUnmet},
		{"exec requires unmet forced", exec, Target{Pane: "%1", Agent: "claude", State: "working"}, true, ReasonRequiresUnmet},
		{"exec gated", exec, Target{Pane: "%1", Agent: "claude", State: "working", Session: "s"}, false, ReasonGated},
		{"exec forced", exec, Target{Pane: "%1", Agent: "claude", State: "working", Session: "s"}, true, ""},
		{"exec for any agent", anyExec, Target{Pane: "%1", Agent: "cursor", State: "unknown"}, false, ""},
	}
	for _, c := range cases {
		if got := Gate(c.a, c.t, c.force); got.Reason != c.want {
			t.Errorf("%s: reason %q (%s), want %q", c.name, got.Reason, got.Why, c.want)
		}
	}
	// No telemetry channel: the context gate can never pass.
	noTel := mustParse(t, "big", "min_engine_version = \"0.1\"\nname = \"big\"\nlabel = \"B\"\nkind = \"exec\"\ncommand = \"true\"\nwhen = { context_pct_min = 50 }\n")
	if g := Gate(noTel, Target{Pane: "%1", Agent: "gemini", State: "idle"}, false); g.Reason != ReasonNoCoverage {
		t.Errorf("no telemetry: %q", g.Reason)
	}
}

func TestCheckText(t *testing.T) {
	sig := DefaultSigils
	cases := map[string]string{
		"use the existing helper":  "",
		"Enter":                    "",
		"C-c":                      "",
		"":                         ReasonEmpty,
		strings.Repeat("a", 4096):  "",
		strings.Repeat("a", 4097):  ReasonTooLong,
		"two\nlines":               ReasonControlBytes,
		"tab\there":                ReasonControlBytes,
		"esc\x1b[0m":               ReasonControlBytes,
		"c1 \u009b":                ReasonControlBytes,
		"bad \xff utf8":            ReasonControlBytes,
		"/compact":                 ReasonSigil,
		"!rm -rf":                  ReasonSigil,
		"  /clear":                 ReasonSigil,
		"a /path is fine mid-line": "",
		"ünïcödé ✓":                "",
	}
	for in, want := range cases {
		if got := CheckText(in, sig); got != want {
			t.Errorf("CheckText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CheckText("/x", []string{"#"}); got != "" {
		t.Errorf("custom sigils: %q", got)
	}
}

func TestJSONKeySets(t *testing.T) {
	r := NewResult("approve", "%5", OutcomeRefused, ReasonGated)
	b, _ := Marshal(r)
	if k := testkit.KeyOrder(t, string(b)); k != "schema action pane outcome exit_code reason" {
		t.Errorf("result keys: %s", k)
	}
	if string(b) != `{"schema":1,"action":"approve","pane":"%5","outcome":"refused","exit_code":4,"reason":"gated"}` {
		t.Errorf("result: %s", b)
	}
	b, _ = Marshal(NewResult("approve", "%5", OutcomeSent, ""))
	if !strings.HasSuffix(string(b), `"exit_code":0,"reason":null}`) {
		t.Errorf("a sent result's reason is null: %s", b)
	}
	b, _ = Marshal(Envelope{Schema: 1, Results: []Result{r}})
	if k := testkit.KeyOrder(t, string(b)); k != "schema results" {
		t.Errorf("envelope keys: %s", k)
	}
	bundled, _ := Bundled()
	var compact *Action
	for _, a := range bundled {
		if a.Name == "compact" {
			compact = a
		}
	}
	e := Entry(compact)
	b, _ = Marshal(e)
	if k := testkit.KeyOrder(t, string(b)); k != "name label kind agents when" {
		t.Errorf("list entry keys: %s", k)
	}
	var m struct {
		When json.RawMessage `json:"when"`
	}
	_ = json.Unmarshal(b, &m)
	if k := testkit.KeyOrder(t, string(m.When)); k != "state detail context_pct_min context_pct_max" {
		t.Errorf("when keys: %s", k)
	}
	if string(m.When) != `{"state":["idle"],"detail":[],"context_pct_min":75,"context_pct_max":null}` {
		t.Errorf("when: %s", m.When)
	}
	reason := ReasonNoCoverage
	b, _ = Marshal(PaneEntry{ListEntry: e, Reason: &reason})
	if k := testkit.KeyOrder(t, string(b)); k != "name label kind agents when fireable reason" {
		t.Errorf("pane entry keys: %s", k)
	}
	b, _ = Marshal(ListDoc{Schema: 1, Actions: []ListEntry{e}})
	if k := testkit.KeyOrder(t, string(b)); k != "schema actions" {
		t.Errorf("list keys: %s", k)
	}
	ep := int64(7)
	b, _ = Marshal(AuditLine{Schema: 1, EpisodeMS: &ep})
	if k := testkit.KeyOrder(t, string(b)); k != "schema at batch source device action kind pane agent episode_ms outcome reason exit_code repeat pending_tool pending_call" {
		t.Errorf("audit keys: %s", k)
	}
}

func TestExitLadder(t *testing.T) {
	sent := NewResult("a", "%1", OutcomeSent, "")
	locked := NewResult("a", "%2", OutcomeRefused, ReasonLocked)
	gated := NewResult("a", "%3", OutcomeRefused, ReasonGated)
	gone := NewResult("a", "%4", OutcomeVanished, ReasonPaneGone)
	timeout := NewResult("a", "%5", OutcomeTimeout, "")
	child := Exited("a", "%6", 3) // a child code inside the reserved band
	ok := Exited("a", "%7", 0)
	broken := NewResult("a", "%8", OutcomeError, "")
	for _, c := range []struct {
		r    Result
		code int
	}{{sent, 0}, {locked, 5}, {gated, 4}, {gone, 3}, {timeout, 124}, {child, 3}, {ok, 0}, {broken, 1}} {
		if c.r.ExitCode != c.code {
			t.Errorf("%s/%s exit %d, want %d", c.r.Outcome, c.r.ReasonString(), c.r.ExitCode, c.code)
		}
	}
	ladder := []Result{sent, locked, gated, gone, timeout, child, broken}
	for i := range ladder {
		got := Worst(ladder[:i+1])
		if got != ladder[i].ExitCode {
			t.Errorf("worst of the first %d = %d, want %d", i+1, got, ladder[i].ExitCode)
		}
	}
	if Worst([]Result{gated, sent, locked}) != 4 || Worst([]Result{sent, ok}) != 0 || Worst(nil) != 0 {
		t.Errorf("worst: a refusal outranks a lock; all acted is 0")
	}
	if Worst([]Result{child, gone}) != 3 || Rank(child) <= Rank(gone) {
		t.Errorf("a failed child ranks below vanished even with the same code")
	}
}

func TestLockAndRepeat(t *testing.T) {
	l := Lock{ExpiryMS: 1700000010000, Nonce: "ab12", PID: 42, Name: "approve"}
	if l.String() != "1700000010000:ab12:42:approve" {
		t.Errorf("lock %s", l)
	}
	p, ok := ParseLock(l.String())
	if !ok || p != l {
		t.Errorf("round trip %+v", p)
	}
	if !Held(l.String(), 1700000009999) || !Held(l.String(), 1700000010000) || Held(l.String(), 1700000010001) || Held("", 1) || Held("junk", 1) {
		t.Errorf("held")
	}
	if g := TakeGuard(5); g != "#{e|<:#{s/[^0-9].*//:@agent_action},5}" {
		t.Errorf("take guard %s", g)
	}
	if g := ReleaseGuard(l); g != "#{==:#{@agent_action},1700000010000:ab12:42:approve}" {
		t.Errorf("release guard %s", g)
	}
	v, n := NextRepeat("", 100, "approve")
	if v != "100:approve:1" || n != 1 {
		t.Errorf("first %s %d", v, n)
	}
	v, n = NextRepeat(v, 100, "approve")
	v, n = NextRepeat(v, 100, "approve")
	if v != "100:approve:3" || n != 3 {
		t.Errorf("third %s %d", v, n)
	}
	if _, n = NextRepeat(v, 200, "approve"); n != 1 {
		t.Errorf("a new episode starts over")
	}
	if _, n = NextRepeat(v, 100, "deny"); n != 1 {
		t.Errorf("another action starts over")
	}
}

func TestSteps(t *testing.T) {
	show := func(st []Step) string {
		var out []string
		for _, s := range st {
			if s.Literal != "" {
				out = append(out, "type("+s.Literal+")")
			} else {
				out = append(out, "keys("+strings.Join(s.Keys, " ")+")")
			}
		}
		return strings.Join(out, " ")
	}
	cases := map[string]string{
		"Enter":             "keys(Enter)",
		"1":                 "keys(1)",
		"Escape Escape":     "keys(Escape Escape)",
		"/compact Enter":    "type(/compact) keys(Enter)",
		"Down Down Enter":   "keys(Down Down Enter)",
		"C-c":               "keys(C-c)",
		"M-Enter":           "keys(M-Enter)",
		"S-Tab C-M-x":       "keys(S-Tab C-M-x)",
		"escape":            "keys(escape)",
		"hello Tab world y": "type(hello) keys(Tab) type(world) keys(y)",
	}
	for in, want := range cases {
		if got := show(Steps(strings.Fields(in))); got != want {
			t.Errorf("Steps(%s) = %s, want %s", in, got, want)
		}
	}
	if Probe("  use   the existing helper instead of a new one") != "use the existing helper instea" {
		t.Errorf("probe %q", Probe("  use   the existing helper instead of a new one"))
	}
}

func TestMenuLine(t *testing.T) {
	items := []MenuItem{{Name: "approve", Label: "Approve #1"}, {Name: "abort", Label: "Abort"}, {Name: "summarize", Label: "Sum", Yes: true}}
	MenuKeys(items)
	if items[0].Key != "a" || items[1].Key != "b" || items[2].Key != "s" {
		t.Errorf("keys %+v", items)
	}
	l, err := MenuLine("/dev/pts/3", " tma act: %5 ", "%5", "menu", items, []string{"/opt/tma", "-S", "/tmp/s#1"}, []string{"--config-dir", "/c"}, "0.1")
	if err != nil {
		t.Fatal(err)
	}
	// Each # is doubled once per expansion it passes: a label twice (-C,
	// display-menu), an entry's argv three times (-C, display-menu,
	// run-shell). The integration test opens the menu and fires an entry.
	for _, want := range []string{"run-shell -b -d 0.1 -C 'display-menu -c ", "Approve ####1", "/tmp/s########1", "run-shell -b "} {
		if !strings.Contains(l, want) {
			t.Errorf("menu line lacks %q:\n%s", want, l)
		}
	}
	if strings.Count(l, "--yes") != 1 || strings.Count(l, "--pane %5 --source") != 3 || strings.Count(l, "--config-dir") != 3 {
		t.Errorf("each entry names the pane and source; only the confirm action carries --yes:\n%s", l)
	}
	if _, err := MenuLine("c\n", "t", "%5", "menu", items, nil, nil, "0.1"); err == nil {
		t.Error("a control byte in the client name must be refused")
	}
	if _, err := MenuLine("c", "t", "5", "menu", items, nil, nil, "0.1"); err == nil {
		t.Error("an invalid pane must be refused")
	}
}

func TestAppendAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "tma", "acts.jsonl")
	AppendAudit(path, AuditLine{Schema: 1, At: 1, Action: "approve"})
	AppendAudit(path, AuditLine{Schema: 1, At: 2, Action: "deny"})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("%d lines, want 2 appended", n)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	// An unwritable log is skipped silently.
	AppendAudit(filepath.Join(path, "under-a-file"), AuditLine{Schema: 1})
}
