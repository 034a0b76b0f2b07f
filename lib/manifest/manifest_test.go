package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// minimal is the smallest valid manifest; tests append to it.
const minimal = `min_engine_version = "0.1"
[identity]
process_names = ["myagent"]
[capture]
`

func TestParseMinimal(t *testing.T) {
	a, err := Parse("myagent", "/u/myagent.toml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "myagent" || a.Source != "/u/myagent.toml" || a.Hooks != nil || a.Telemetry != nil || len(a.Rules) != 0 {
		t.Errorf("unexpected agent %+v", a)
	}
	if a.Covers("working") || a.IsVisible("idle") {
		t.Error("a manifest without hooks or visible states covers nothing")
	}
}

func TestParseFull(t *testing.T) {
	src := minimal + `visible = ["working", "blocked"]
[hooks]
covers = ["working", "idle", "lifecycle"]
[[hooks.map]]
event = "Boot"
claim = { lifecycle = "start" }
[[hooks.map]]
event = "Wait"
matcher = 'perm(ission)?'
claim = { state = "blocked", detail = "perm" }
[[hooks.map]]
event = "Done"
claim = { state = "idle" }
turn_end = true
[[rules]]
state = "blocked"
detail = "perm"
priority = 7
region = "tail_lines(5)"
match = { all = [ { contains = "Allow" }, { not = { regex = 'denied$' } } ] }
skip_state_update = false
label = "allow-box"
[details.permission]
aliases = ["perm", "approval"]
[telemetry.context]
channel = "event"
format = "pi-context-json"
`
	a, err := Parse("myagent", "x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Covers("idle") || !a.Covers("lifecycle") || a.Covers("blocked") {
		t.Errorf("Covers wrong: %v", a.Hooks.Covers)
	}
	if !a.IsVisible("blocked") || a.IsVisible("idle") {
		t.Errorf("IsVisible wrong: %v", a.Visible)
	}
	if got := a.Hooks.Map[1].Claim; got != (Claim{State: "blocked", Detail: "permission"}) {
		t.Errorf("claim detail not normalised: %+v", got)
	}
	if !a.Hooks.Map[1].Matcher.MatchString(`{"type":"permission"}`) || a.Hooks.Map[0].Matcher != nil {
		t.Error("matchers wrong")
	}
	if got := a.Hooks.Map[0].Claim; got != (Claim{Lifecycle: "start"}) {
		t.Errorf("lifecycle claim: %+v", got)
	}
	if !a.Hooks.Map[2].TurnEnd || a.Hooks.Map[1].TurnEnd {
		t.Error("turn_end wrong")
	}
	r := a.Rules[0]
	if r.Index != 0 || r.State != "blocked" || r.Detail != "permission" || r.Priority != 7 || r.Region != "tail_lines(5)" || r.Label != "allow-box" {
		t.Errorf("rule: %+v", r)
	}
	if got, want := r.Match.String(), `{ all = [{ contains = "Allow" }, { not = { regex = "denied$" } }] }`; got != want {
		t.Errorf("Match.String() = %s, want %s", got, want)
	}
	for tok, want := range map[string]string{"perm": "permission", "approval": "permission", "permission": "permission", "other": "other"} {
		if got := a.NormalizeDetail(tok); got != want {
			t.Errorf("NormalizeDetail(%q) = %q, want %q", tok, got, want)
		}
	}
	if a.Telemetry == nil || *a.Telemetry.Context != (TelemetryContext{Channel: "event", Format: "pi-context-json"}) {
		t.Errorf("telemetry: %+v", a.Telemetry)
	}
}

func TestParseErrors(t *testing.T) {
	rule := func(body string) string {
		return minimal + "[[rules]]\nstate = \"idle\"\nregion = \"visible\"\n" + body + "\n"
	}
	tests := []struct {
		name string
		stem string
		src  string
		want string // every error also names the file
	}{
		{"unknown top key", "", minimal + "colour = 1\n", "unknown key capture.colour"},
		{"settle too long", "", minimal + "[input]\nsettle_ms = 5000\n", "input.settle_ms: 5000 is not between 0 and 2000"},
		{"settle negative", "", minimal + "[input]\nsettle_ms = -1\n", "input.settle_ms: -1 is not between 0 and 2000"},
		{"unknown input key", "", minimal + "[input]\nsettle = 5\n", "unknown key input.settle"},
		{"unknown identity key", "", strings.Replace(minimal, "[capture]", "process_name = [\"x\"]\n[capture]", 1), "unknown key identity.process_name"},
		{"unknown rule key", "", rule("match = { contains = \"x\" }\nweight = 3"), "unknown key rules.weight"},
		{"unknown match key", "", rule("match = { contains = \"x\", ignore_case = true }"), "unknown key rules.match.ignore_case"},
		{"unknown nested match key", "", rule("match = { any = [ { contanis = \"x\" } ] }"), "unknown key rules.match.any.contanis"},
		{"unknown hook key", "", minimal + "[hooks]\nkovers = []\n", "unknown key hooks.kovers"},
		{"toml syntax", "", minimal + "visible = [\n", "TOML parse error at line"},
		{"missing version", "", strings.Replace(minimal, `min_engine_version = "0.1"`, "", 1), "missing min_engine_version"},
		{"version not string", "", strings.Replace(minimal, `"0.1"`, "0.1", 1), "must be a string"},
		{"version garbage", "", strings.Replace(minimal, `"0.1"`, `"one"`, 1), "not a dotted version"},
		{"newer version wins over unknown keys", "", strings.Replace(minimal, `"0.1"`, `"0.2"`, 1) + "future_key = 1\n", "upgrade tma"},
		{"much newer version", "", strings.Replace(minimal, `"0.1"`, `"1.0"`, 1), "needs engine version 1.0"},
		{"newer version wins over a retyped key", "", strings.Replace(strings.Replace(minimal, `"0.1"`, `"0.2"`, 1), `["myagent"]`, `"myagent"`, 1), "upgrade tma"},
		{"a retyped key at this version", "", strings.Replace(minimal, `["myagent"]`, `"myagent"`, 1), "identity.process_names"},
		{"missing version wins over a retyped key", "", strings.Replace(strings.Replace(minimal, `min_engine_version = "0.1"`, "", 1), `["myagent"]`, `"myagent"`, 1), "missing min_engine_version"},
		{"missing identity", "", "min_engine_version = \"0.1\"\n[capture]\n", "missing [identity]"},
		{"no process names", "", strings.Replace(minimal, `["myagent"]`, "[]", 1), "identity.process_names"},
		{"missing capture", "", strings.Replace(minimal, "[capture]\n", "", 1), "missing [capture]"},
		{"bad title regex", "", strings.Replace(minimal, "[capture]", "title_patterns = ['(']\n[capture]", 1), "identity.title_patterns[0]: bad regex"},
		{"bad visible state", "", minimal + "visible = [\"busy\"]\n", `capture.visible: state "busy"`},
		{"bad rule state", "", minimal + "[[rules]]\nstate = \"busy\"\nregion = \"visible\"\nmatch = { contains = \"x\" }\n", `rules[0]: state "busy" is not one of`},
		{"missing rule state", "", minimal + "[[rules]]\nregion = \"visible\"\nmatch = { contains = \"x\" }\n", "rules[0]: state: required"},
		{"bad regex names index and key", "", rule("match = { contains = \"x\" }") + "[[rules]]\nstate = \"idle\"\nregion = \"visible\"\nmatch = { any = [ { contains = \"y\" }, { line_regex = '[' } ] }\n", "rules[1]: match.any[1].line_regex: bad regex"},
		{"bad regex leaf", "", rule("match = { regex = '(?<' }"), "rules[0]: match.regex: bad regex"},
		{"bad region", "", strings.Replace(rule("match = { contains = \"x\" }"), "visible", "bottom(3)", 1), `rules[0]: region: unknown region "bottom(3)"`},
		{"missing region", "", minimal + "[[rules]]\nstate = \"idle\"\nmatch = { contains = \"x\" }\n", "rules[0]: region: required"},
		{"missing match", "", rule(""), "rules[0]: match: required"},
		{"empty match", "", rule("match = {}"), "rules[0]: match: needs one of"},
		{"two kinds in a node", "", rule("match = { contains = \"x\", regex = \"y\" }"), "rules[0]: match: has contains and regex"},
		{"empty any", "", rule("match = { any = [] }"), "rules[0]: match.any: needs at least one"},
		{"empty contains", "", rule("match = { contains = \"\" }"), "rules[0]: match.contains: empty string"},
		{"bad rule detail", "", rule("match = { contains = \"x\" }\ndetail = \"Needs Input\""), `rules[0]: detail "Needs Input" must match`},
		{"detail is a state", "", rule("match = { contains = \"x\" }\ndetail = \"idle\""), `rules[0]: detail "idle" is a state name`},
		{"details key is a state", "", minimal + "[details.blocked]\n", "details.blocked: a detail token may not be a state name"},
		{"details key bad token", "", minimal + "[details.\"Bad Token\"]\n", "details.Bad Token: detail token must match"},
		{"alias is a state", "", minimal + "[details.perm]\naliases = [\"working\"]\n", `details.perm.aliases[0]: "working" is a state name`},
		{"alias bad token", "", minimal + "[details.perm]\naliases = [\"Perm\"]\n", `details.perm.aliases[0]: "Perm" must match`},
		{"alias twice", "", minimal + "[details.a]\naliases = [\"x\"]\n[details.b]\naliases = [\"x\"]\n", `"x" is already an alias of a`},
		{"alias is a token", "", minimal + "[details.a]\naliases = [\"b\"]\n[details.b]\n", `"b" is itself a detail token`},
		{"bad covers", "", minimal + "[hooks]\ncovers = [\"everything\"]\n", `hooks.covers[0]: "everything"`},
		{"hook without event", "", minimal + "[[hooks.map]]\nclaim = { state = \"idle\" }\n", "hooks.map[0]: event: required"},
		{"hook without claim", "", minimal + "[[hooks.map]]\nevent = \"E\"\n", "hooks.map[0]: claim: required"},
		{"hook bad matcher", "", minimal + "[[hooks.map]]\nevent = \"E\"\nmatcher = '+'\nclaim = { state = \"idle\" }\n", "hooks.map[0]: matcher: bad regex"},
		{"hook bad state", "", minimal + "[[hooks.map]]\nevent = \"E\"\nclaim = { state = \"done\" }\n", `hooks.map[0]: claim.state "done"`},
		{"hook bad detail", "", minimal + "[[hooks.map]]\nevent = \"E\"\nclaim = { state = \"idle\", detail = \"a,b\" }\n", `hooks.map[0]: claim.detail "a,b"`},
		{"hook bad lifecycle", "", minimal + "[[hooks.map]]\nevent = \"E\"\nclaim = { lifecycle = \"restart\" }\n", `claim.lifecycle: "restart"`},
		{"hook state and lifecycle", "", minimal + "[[hooks.map]]\nevent = \"E\"\nclaim = { lifecycle = \"end\", state = \"idle\" }\n", "claim: state and lifecycle are exclusive"},
		{"hook empty claim", "", minimal + "[[hooks.map]]\nevent = \"E\"\nclaim = {}\n", "claim: needs state or lifecycle"},
		{"hook unknown claim key", "", minimal + "[[hooks.map]]\nevent = \"E\"\nclaim = { state = \"idle\", why = \"x\" }\n", "unknown key hooks.map.claim.why"},
		{"telemetry channel", "", minimal + "[telemetry.context]\nchannel = \"socket\"\nformat = \"pi-context-json\"\n", `telemetry.context.channel: "socket"`},
		{"telemetry format", "", minimal + "[telemetry.context]\nchannel = \"event\"\nformat = \"xml\"\n", `telemetry.context.format: "xml"`},
		{"bad stem", "My Agent", minimal, `agent name "My Agent"`},
		{"wrong type", "", strings.Replace(minimal, `["myagent"]`, `"myagent"`, 1), "process_names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stem := tt.stem
			if stem == "" {
				stem = "myagent"
			}
			_, err := Parse(stem, "/home/u/.config/tma/agents/myagent.toml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "/home/u/.config/tma/agents/myagent.toml: ") {
				t.Errorf("error %q does not name the file first", msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not contain %q", msg, tt.want)
			}
		})
	}
}

func TestVersions(t *testing.T) {
	for _, v := range []string{"0.1", "0.1.0", "0.0.9", "0"} {
		src := strings.Replace(minimal, `"0.1"`, `"`+v+`"`, 1)
		if _, err := Parse("myagent", "x.toml", []byte(src)); err != nil {
			t.Errorf("min_engine_version %s: %v", v, err)
		}
	}
}

func TestMatchesProcess(t *testing.T) {
	a := &Agent{ProcessNames: []string{"claude", "opencode", "my-very-long-agent-name"}}
	tests := []struct {
		basename string
		want     bool
	}{
		{"claude", true},
		{"/usr/local/bin/claude", true},
		{"claude.exe", true},
		{".claude-wrapped", true},
		{"..claude-wrapped-wrapped", true},
		{"opencode.exe", true},
		{".opencode-wrapped", true},
		{".opencode-wrapp", true}, // comm truncation of .opencode-wrapped
		{"my-very-long-ag", true}, // comm truncation of a long name
		{"my-very-long-a", false}, // shorter than the 15-byte truncation
		{"my-very-long-agent-nam", false},
		{"claud", false},
		{"claude-code", false},
		{"Claude", false},
		{"node", false},
		{"", false},
		{".exe", false},
		{"-wrapped", false},
	}
	for _, tt := range tests {
		if got := a.MatchesProcess(tt.basename); got != tt.want {
			t.Errorf("MatchesProcess(%q) = %v, want %v", tt.basename, got, tt.want)
		}
	}
}

// TestIdentifies: the bundled pi manifest (process names pi and node, title
// ^π\s) takes a process named pi whatever the title says (rpc-demo.ts, an
// example pi ships, renames it "pi RPC Demo"), and a node process only
// with its own title; a runtime's decorated name still needs the title.
func TestIdentifies(t *testing.T) {
	agents, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	var pi *Agent
	for _, a := range agents {
		if a.Name == "pi" {
			pi = a
		}
	}
	if pi == nil {
		t.Fatal("no bundled pi manifest")
	}
	for _, c := range []struct {
		proc, title string
		want        bool
	}{
		{"pi", "π - project", true},
		{"pi", "pi RPC Demo", true},
		{"pi", "", true},
		{"/usr/local/bin/pi", "anything", true},
		{"node", "π - project", true},
		{"node", "pi RPC Demo", false},
		{"node", "", false},
		{".node-wrapped", "pi RPC Demo", false},
		{"bash", "π - project", false},
	} {
		if got := pi.Identifies(c.proc, c.title); got != c.want {
			t.Errorf("pi.Identifies(%q, %q) = %v, want %v", c.proc, c.title, got, c.want)
		}
	}
	for name, want := range map[string]bool{"node": true, "/usr/bin/node": true, ".node-wrapped": true, "bun.exe": true, "python3": true, "pi": false, "nodes": false, "": false} {
		if got := IsRuntime(name); got != want {
			t.Errorf("IsRuntime(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestMatchesTitle(t *testing.T) {
	src := strings.Replace(minimal, "[capture]", "title_patterns = ['^π\\s', '^Cursor Agent$']\n[capture]", 1)
	a, err := Parse("myagent", "x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for title, want := range map[string]bool{"π - ~/src": true, "Cursor Agent": true, "Cursor Agent 2": false, "bash": false, "": false} {
		if got := a.MatchesTitle(title); got != want {
			t.Errorf("MatchesTitle(%q) = %v, want %v", title, got, want)
		}
	}
	if !(&Agent{}).MatchesTitle("anything") {
		t.Error("no title patterns must match any title")
	}
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func names(s *Set) []string {
	var out []string
	for _, a := range s.All() {
		out = append(out, a.Name)
	}
	return out
}

func TestLoadBundled(t *testing.T) {
	s, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"claude", "codex", "copilot", "crush", "cursor", "gemini", "opencode", "pi", "qwen"}, names(s)); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if len(s.Problems()) != 0 {
		t.Errorf("problems: %v", s.Problems())
	}
	if a := s.Get("claude"); a == nil || !a.Bundled {
		t.Errorf("Get(claude) = %+v", a)
	}
	if s.Get("nope") != nil {
		t.Error("Get(nope) should be nil")
	}
}

func TestLoadUserDir(t *testing.T) {
	dir := t.TempDir()
	// Shadows the bundled claude by stem.
	writeFile(t, dir, "claude.toml", strings.Replace(minimal, "myagent", "claude-fork", 1))
	// Adds a new agent.
	writeFile(t, dir, "myagent.toml", minimal)
	// Broken: skipped and reported, never fatal.
	writeFile(t, dir, "broken.toml", minimal+"bogus = 1\n")
	// Not manifests.
	writeFile(t, dir, "README.md", "notes")
	writeFile(t, dir, ".hidden.toml", "garbage")
	if err := os.Mkdir(filepath.Join(dir, "sub.toml"), 0o755); err != nil {
		t.Fatal(err)
	}

	s, err := Load(LoadOptions{UserDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"claude", "codex", "copilot", "crush", "cursor", "gemini", "myagent", "opencode", "pi", "qwen"}, names(s)); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	c := s.Get("claude")
	if c.Bundled || c.Source != filepath.Join(dir, "claude.toml") || !c.MatchesProcess("claude-fork") {
		t.Errorf("claude not shadowed: %+v", c)
	}
	if !s.Get("codex").Bundled {
		t.Error("codex should stay bundled")
	}
	if len(s.Problems()) != 1 || s.Problems()[0].File != filepath.Join(dir, "broken.toml") ||
		!strings.Contains(s.Problems()[0].Err.Error(), "unknown key capture.bogus") {
		t.Errorf("problems = %v", s.Problems())
	}

	// A missing user dir is fine.
	s, err = Load(LoadOptions{UserDir: filepath.Join(dir, "absent")})
	if err != nil || len(s.All()) != 9 || len(s.Problems()) != 0 {
		t.Errorf("missing user dir: %v, %d agents, problems %v", err, len(s.All()), s.Problems())
	}
}

func TestLoadManifestDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "myagent.toml", minimal)
	writeFile(t, dir, "typo.toml", minimal+"[[rules]]\n")
	user := t.TempDir()
	writeFile(t, user, "other.toml", minimal)

	s, err := Load(LoadOptions{ManifestDir: dir, UserDir: user})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"myagent"}, names(s)); diff != "" {
		t.Errorf("closed set (-want +got):\n%s", diff)
	}
	if len(s.Problems()) != 1 || !strings.Contains(s.Problems()[0].Err.Error(), "typo.toml: rules[0]: state: required") {
		t.Errorf("problems = %v", s.Problems())
	}
	if _, err := Load(LoadOptions{ManifestDir: filepath.Join(dir, "absent")}); err == nil {
		t.Error("a missing --manifest-dir must be an error")
	}
}

func TestOverride(t *testing.T) {
	s, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Override("codex", false, nil)
	if s.Get("codex") != nil {
		t.Error("disabled codex still present")
	}
	s.Override("claude", true, []string{"claude-wrapper", "claude", ""})
	c := s.Get("claude")
	if diff := cmp.Diff([]string{"claude", "claude-wrapper"}, c.ProcessNames); diff != "" {
		t.Errorf("process names (-want +got):\n%s", diff)
	}
	if !c.MatchesProcess("claude-wrapper") {
		t.Error("extra process name does not match")
	}
	s.Override("nonexistent", false, []string{"x"}) // ignored
	if diff := cmp.Diff([]string{"claude", "copilot", "crush", "cursor", "gemini", "opencode", "pi", "qwen"}, names(s)); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	// Another load is unaffected.
	s2, _ := Load(LoadOptions{})
	if s2.Get("claude").MatchesProcess("claude-wrapper") || s2.Get("codex") == nil {
		t.Error("override leaked into a fresh load")
	}
}

func TestMapEvent(t *testing.T) {
	s, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Get("claude")
	tests := []struct {
		event, payload string
		want           Claim
		turnEnd, none  bool
	}{
		{"PermissionRequest", `{"tool_name":"Bash"}`, Claim{State: "blocked", Detail: "permission"}, false, false},
		// AskUserQuestion asks through PermissionRequest too: a question, not a permission.
		{"PermissionRequest", `{"tool_name":"AskUserQuestion"}`, Claim{State: "blocked", Detail: "question"}, false, false},
		// permission_prompt follows every PermissionRequest, question or not, with the same
		// payload: unmapped, so it cannot overwrite the detail (fixtures/claude/hooks).
		{"Notification", `{"notification_type": "permission_prompt"}`, Claim{}, false, true},
		{"Notification", `{"notification_type":"elicitation_dialog"}`, Claim{State: "blocked", Detail: "question"}, false, false},
		{"Notification", `{"notification_type":"quota_auto_resume_fired"}`, Claim{State: "working", Detail: "rate_limit"}, false, false},
		{"Notification", `{"notification_type":"quota_auto_resume_stale"}`, Claim{State: "blocked", Detail: "rate_limit"}, false, false},
		{"Notification", `{"notification_type":"idle_prompt"}`, Claim{}, false, true},
		{"Stop", `{}`, Claim{State: "idle"}, true, false},
		{"SessionStart", ``, Claim{Lifecycle: "start"}, false, false},
		{"MessageDisplay", `{}`, Claim{}, false, true},
	}
	for _, tt := range tests {
		m := c.MapEvent(tt.event, tt.payload)
		if tt.none {
			if m != nil {
				t.Errorf("MapEvent(%s, %s) = %+v, want none", tt.event, tt.payload, m.Claim)
			}
			continue
		}
		if m == nil || m.Claim != tt.want || m.TurnEnd != tt.turnEnd {
			t.Errorf("MapEvent(%s, %s) = %+v, want %+v turn_end=%v", tt.event, tt.payload, m, tt.want, tt.turnEnd)
		}
	}
	if (&Agent{}).MapEvent("Stop", "") != nil {
		t.Error("an agent without hooks maps nothing")
	}
}

// TestHookPayloads maps payloads shaped like the ones the lab logged from the real agents.
func TestHookPayloads(t *testing.T) {
	s, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		agent, event, payload string
		want                  Claim
		turnEnd               bool
	}{
		{"gemini", "Notification", `{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool Confirm"}`, Claim{State: "blocked", Detail: "permission"}, false},
		{"codex", "notify", `{"type":"agent-turn-complete","thread-id":"t","turn-id":"u"}`, Claim{State: "idle"}, true},
		{"pi", "agent_end", `{"type":"agent_end","messages":[]}`, Claim{State: "idle"}, true},
		{"pi", "agent_settled", `{}`, Claim{State: "idle"}, false},
		{"cursor", "postToolUseFailure", `{"is_interrupt": false}`, Claim{State: "working"}, false},
		{"opencode", "permission-required", `{}`, Claim{State: "blocked", Detail: "permission"}, false},
	}
	for _, tt := range tests {
		m := s.Get(tt.agent).MapEvent(tt.event, tt.payload)
		if m == nil || m.Claim != tt.want || m.TurnEnd != tt.turnEnd {
			t.Errorf("%s %s: got %+v, want %+v turn_end=%v", tt.agent, tt.event, m, tt.want, tt.turnEnd)
		}
	}
	if m := s.Get("cursor").MapEvent("postToolUseFailure", `{"is_interrupt": true}`); m != nil {
		t.Errorf("an interrupted cursor tool must not claim working: %+v", m.Claim)
	}
	if m := s.Get("gemini").MapEvent("Notification", `{"notification_type":"Other"}`); m != nil {
		t.Errorf("a non-permission gemini notification must not claim: %+v", m.Claim)
	}
}
