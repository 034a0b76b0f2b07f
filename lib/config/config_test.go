package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func envOf(m map[string]string) Env {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// The manual's "Full example (built-in defaults)", verbatim, parses to Default(). Its one
// [[agent]] entry restates the bundled claude manifest (enabled, matched as "claude"), so it is
// checked on its own: Default() carries no overrides.
func TestManualFullExampleIsDefault(t *testing.T) {
	got, err := Load("testdata/manual_full_example.toml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), got, cmpopts.IgnoreFields(Config{}, "Agents")); diff != "" {
		t.Errorf("manual example != Default() (-want +got):\n%s", diff)
	}
	wantAgents := []Agent{{Name: "claude", Enabled: true, ProcessNames: []string{"claude"}}}
	if diff := cmp.Diff(wantAgents, got.Agents); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
}

// Default() spelled out key by key from the manual's Configuration page.
func TestDefaultMatchesManual(t *testing.T) {
	want := &Config{
		Fold: Fold{DwellSecs: 3, HookDecaySecs: 60, BlockedDecaySecs: 300, FreshnessSecs: 3},
		Status: Styles{
			Blocked: Style{Glyph: "⚑", Color: "red"},
			Working: Style{Glyph: "●", Color: "yellow"},
			Idle:    Style{Glyph: "○", Color: "green"},
			Done:    Style{Glyph: "✓", Color: "magenta"},
			Unknown: Style{Glyph: "?", Color: "colour244"},
		},
		Picker: Styles{
			Blocked: Style{Glyph: "⚑", Color: "red"},
			Working: Style{Glyph: "●", Color: "yellow"},
			Idle:    Style{Glyph: "○", Color: "green"},
			Done:    Style{Glyph: "✓", Color: "magenta"},
			Unknown: Style{Glyph: "?", Color: "darkgray"},
		},
		Notify:  Notify{FromEvent: false, On: []string{"blocked"}},
		Serve:   Serve{ReconcileIntervalMS: 2000, MaxConnections: 4, HTTP: ServeHTTP{Listen: DefaultHTTPListen}},
		Focus:   Focus{Events: false},
		Install: Install{WrapperRef: "bare"},
		Hooks:   Hooks{ClaudeReplyLane: ReplyLane{Enabled: true, HoldMS: 25000}},
		Tmux:    Tmux{ControlClients: true},
		Telemetry: Telemetry{Windows: map[string]int64{
			"gemini-2.5-pro": 1048576, "gemini-2.5-flash": 1048576, "gemini-2.5-flash-lite": 1048576,
		}},
		Daemon: Daemon{
			SweepSecs: 45, QuietMS: 1000, ZeroMemberRecheckSecs: 1, DemoteEdges: 5,
			Autostart: false, RestartOnUpgrade: true,
		},
	}
	if diff := cmp.Diff(want, Default()); diff != "" {
		t.Errorf("Default() (-want +got):\n%s", diff)
	}
	// Fresh maps and slices on every call.
	a := Default()
	a.Notify.On[0] = "done"
	a.Telemetry.Windows["x"] = 1
	if b := Default(); b.Notify.On[0] != "blocked" || b.ModelRecognized("x") {
		t.Error("Default() shares state between calls")
	}
}

func TestEmptyFileIsDefault(t *testing.T) {
	for _, src := range []string{"", "# nothing\n", "[fold]\n[status]\n[notify]\n[telemetry.windows]\n"} {
		got, err := parse([]byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if diff := cmp.Diff(Default(), got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", src, diff)
		}
	}
}

func TestEveryKey(t *testing.T) {
	got, err := Load("testdata/every_key.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Fold: Fold{DwellSecs: 4, HookDecaySecs: 61, BlockedDecaySecs: 301, FreshnessSecs: 0},
		Status: Styles{
			Blocked: Style{"B", "#ff8800"}, Working: Style{"W", "colour12"}, Idle: Style{"I", "color3"},
			Done: Style{"D", "blue"}, Unknown: Style{"U", "white"},
		},
		Picker: Styles{
			Blocked: Style{"b", "lightred"}, Working: Style{"w", "lightyellow"}, Idle: Style{"i", "lightgreen"},
			Done: Style{"d", "lightmagenta"}, Unknown: Style{"u", "gray"},
		},
		Notify: Notify{
			FromEvent: true, Command: "my-notify-hook", On: []string{"blocked", "done"},
			Bell: true, OSC: true, OSC777: true, OSCProgress: true,
			Log: "~/.local/state/tma/notifications.jsonl", IncludeTitle: true,
			ContextHigh: &ContextHigh{Threshold: 75, Command: "ctx-hook"},
			Stall:       &Stall{ThresholdS: 900, Command: "stall-hook"},
			Blocked:     Route{Command: "blocked-hook"},
			Done:        Route{Command: "done-hook"},
		},
		Act:     Act{Log: "~/.local/state/tma/acts.jsonl"},
		Serve:   Serve{ReconcileIntervalMS: 500, MaxConnections: 2, HTTP: ServeHTTP{Listen: DefaultHTTPListen}},
		Focus:   Focus{Events: true},
		Install: Install{WrapperRef: "absolute"},
		Hooks:   Hooks{ClaudeReplyLane: ReplyLane{Enabled: true, HoldMS: 12000}},
		Tmux:    Tmux{Bin: "tmate"},
		Telemetry: Telemetry{Windows: map[string]int64{
			"gemini-2.5-pro": 1048576, "gemini-2.5-flash": 1048576, "gemini-2.5-flash-lite": 1048576,
			"gpt-5-codex": 272000,
		}},
		Daemon: Daemon{
			SweepSecs: 30, QuietMS: 500, ZeroMemberRecheckSecs: 2, DemoteEdges: 3,
			Autostart: true, RestartOnUpgrade: false,
			WindowNames: &WindowNames{Format: "{repo}:{state} {agent}/{detail}@{branch}"},
		},
		Agents: []Agent{
			{Name: "claude", Enabled: false},
			{Name: "codex", Enabled: true, ProcessNames: []string{"codex", "codex-aarch64-a"}},
		},
		API: map[string]API{"opencode": {APIBase: "http://127.0.0.1:4096"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Each case is a file and the fields it should change from Default().
func TestPartial(t *testing.T) {
	tests := []struct {
		name string
		src  string
		edit func(c *Config)
	}{
		{"status color only keeps glyph", "[status]\nblocked = { color = \"blue\" }\n",
			func(c *Config) { c.Status.Blocked.Color = "blue" }},
		{"status glyph only keeps color, header form", "[status.done]\nglyph = \"*\"\n",
			func(c *Config) { c.Status.Done.Glyph = "*" }},
		{"picker unknown only", "[picker]\nunknown = { glyph = \"!\" }\n",
			func(c *Config) { c.Picker.Unknown.Glyph = "!" }},
		{"one fold key", "[fold]\ndwell_secs = 0\n",
			func(c *Config) { c.Fold.DwellSecs = 0 }},
		{"on replaces the list", "[notify]\non = [\"done\"]\n",
			func(c *Config) { c.Notify.On = []string{"done"} }},
		{"on may be empty", "[notify]\non = []\n",
			func(c *Config) { c.Notify.On = []string{} }},
		{"notify.done without command", "[notify.done]\n",
			func(c *Config) {}},
		{"telemetry entries add to the shipped ones", "[telemetry.windows]\n\"gpt-5-codex\" = 272000\n",
			func(c *Config) { c.Telemetry.Windows["gpt-5-codex"] = 272000 }},
		{"telemetry overrides a shipped size", "[telemetry.windows]\n\"gemini-2.5-pro\" = 1\n",
			func(c *Config) { c.Telemetry.Windows["gemini-2.5-pro"] = 1 }},
		{"agent enabled defaults to true", "[[agent]]\nname = \"pi\"\n[[agent]]\nname = \"codex\"\nenabled = false\n",
			func(c *Config) { c.Agents = []Agent{{Name: "pi", Enabled: true}, {Name: "codex"}} }},
		{"reply lane false", "[hooks]\nclaude_reply_lane = false\n",
			func(c *Config) { c.Hooks.ClaudeReplyLane.Enabled = false }},
		{"reply lane true", "[hooks]\nclaude_reply_lane = true\n",
			func(c *Config) {}},
		{"reply lane empty table", "[hooks]\nclaude_reply_lane = {}\n",
			func(c *Config) {}},
		{"reply lane header form", "[hooks.claude_reply_lane]\nhold_ms = 12000\n",
			func(c *Config) { c.Hooks.ClaudeReplyLane.HoldMS = 12000 }},
		{"hold_ms floor", "[hooks]\nclaude_reply_lane = { hold_ms = 1000 }\n",
			func(c *Config) { c.Hooks.ClaudeReplyLane.HoldMS = 1000 }},
		{"hold_ms ceiling", "[hooks]\nclaude_reply_lane = { hold_ms = 590000 }\n",
			func(c *Config) { c.Hooks.ClaudeReplyLane.HoldMS = 590000 }},
		{"window_names literal braces pass", "[daemon.window_names]\nformat = \"{state} {x\"\n",
			func(c *Config) { c.Daemon.WindowNames = &WindowNames{Format: "{state} {x"} }},
		{"stall alone", "[notify]\nstall = { threshold_s = 60 }\n",
			func(c *Config) { c.Notify.Stall = &Stall{ThresholdS: 60} }},
		{"tmux bin", "[tmux]\nbin = \"tmate\"\n",
			func(c *Config) { c.Tmux.Bin = "tmate" }},
		{"api table", "[api.opencode]\napi_base = \"https://host:4096/base\"\n",
			func(c *Config) { c.API = map[string]API{"opencode": {APIBase: "https://host:4096/base"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			tt.edit(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Error // Line 0 = not checked; Msg is a substring
	}{
		// Unknown keys, at every depth.
		{"top level", "colour = \"red\"\n", Error{Key: "colour", Msg: "unknown key"}},
		{"unknown table", "[notfy]\non = []\n", Error{Key: "notfy", Msg: "unknown key"}},
		{"in a section", "[fold]\ndwel_secs = 3\n", Error{Key: "fold.dwel_secs", Msg: "unknown key"}},
		{"in status.blocked", "[status]\nblocked = { glyph = \"x\", colour = \"red\" }\n",
			Error{Key: "status.blocked.colour", Msg: "unknown key"}},
		{"unknown status class", "[status]\nstalled = { glyph = \"x\" }\n",
			Error{Key: "status.stalled", Msg: "unknown key"}},
		{"in notify.done", "[notify.done]\ncomand = \"x\"\n", Error{Key: "notify.done.comand", Msg: "unknown key"}},
		{"in notify.context_high", "[notify]\ncontext_high = { threshold = 5, cmd = \"x\" }\n",
			Error{Key: "notify.context_high.cmd", Msg: "unknown key"}},
		{"unknown notify trigger table", "[notify.idle]\ncommand = \"x\"\n",
			Error{Key: "notify.idle", Msg: "unknown key"}},
		{"in [[agent]]", "[[agent]]\nname = \"claude\"\nprocess_name = [\"x\"]\n",
			Error{Key: "agent.process_name", Msg: "unknown key"}},
		{"in api.<name>", "[api.opencode]\napi_base = \"http://h:1\"\nbase = \"x\"\n",
			Error{Key: "api.opencode.base", Msg: "unknown key"}},
		{"in reply lane", "[hooks]\nclaude_reply_lane = { hold = 5000 }\n",
			Error{Line: 2, Key: "hooks.claude_reply_lane", Msg: `unknown key "hold"`}},
		{"case matters", "[Fold]\ndwell_secs = 3\n", Error{Key: "Fold", Msg: "unknown key"}},
		{"case matters in a key", "[fold]\nDwell_Secs = 3\n", Error{Key: "fold.Dwell_Secs", Msg: "unknown key"}},
		{"all unknown keys named", "a = 1\n[fold]\nb = 2\n", Error{Key: "a", Msg: "unknown key (also unknown: fold.b)"}},

		// Type errors carry the key and the line.
		{"int as string", "[fold]\n\ndwell_secs = \"3\"\n", Error{Line: 3, Key: "fold.dwell_secs", Msg: "expected integer, found string"}},
		{"bool as string", "[notify]\nbell = \"yes\"\n", Error{Line: 2, Key: "notify.bell", Msg: "expected boolean, found string"}},
		{"style as string", "[status]\nidle = \"green\"\n", Error{Line: 2, Key: "status.idle", Msg: "expected a table, found string"}},
		{"on as string", "[notify]\non = \"blocked\"\n", Error{Line: 2, Key: "notify.on", Msg: "expected array, found string"}},
		{"window size as string", "[telemetry.windows]\nm = \"big\"\n", Error{Line: 2, Key: "telemetry.windows.m", Msg: "expected integer, found string"}},
		{"float for int", "[serve]\nmax_connections = 4.5\n", Error{Line: 2, Key: "serve.max_connections", Msg: "expected integer, found float"}},
		{"syntax", "[fold]\ndwell_secs = = 3\n", Error{Line: 2}},

		// hold_ms bounds and the lane's shape.
		{"hold_ms below", "[hooks]\nclaude_reply_lane = { hold_ms = 999 }\n",
			Error{Line: 2, Key: "hooks.claude_reply_lane", Msg: "hold_ms must be within 1000..=590000 (milliseconds), got 999"}},
		{"hold_ms above", "[hooks]\nclaude_reply_lane = { hold_ms = 590001 }\n",
			Error{Line: 2, Key: "hooks.claude_reply_lane", Msg: "1000..=590000"}},
		{"hold_ms type", "[hooks]\nclaude_reply_lane = { hold_ms = \"25s\" }\n",
			Error{Key: "hooks.claude_reply_lane", Msg: "hold_ms: expected integer, found string"}},
		{"lane as string", "[hooks]\nclaude_reply_lane = \"off\"\n",
			Error{Key: "hooks.claude_reply_lane", Msg: "expected a table { hold_ms = N } or false, found string"}},

		// Values.
		{"window_names bad token", "[daemon.window_names]\nformat = \"{repo}:{sate}\"\n",
			Error{Key: "daemon.window_names.format", Msg: "unknown token {sate}"}},
		{"window_names empty token", "[daemon.window_names]\nformat = \"{}\"\n",
			Error{Key: "daemon.window_names.format", Msg: "unknown token {}"}},
		{"window_names no format", "[daemon.window_names]\n", Error{Key: "daemon.window_names", Msg: "format is required"}},
		{"window_names empty format", "[daemon.window_names]\nformat = \"\"\n", Error{Key: "daemon.window_names.format", Msg: "must not be empty"}},
		{"on token", "[notify]\non = [\"blocked\", \"stall\"]\n", Error{Key: "notify.on", Msg: `unknown trigger "stall"`}},
		{"context_high without threshold", "[notify.context_high]\ncommand = \"x\"\n",
			Error{Key: "notify.context_high", Msg: "threshold is required"}},
		{"context_high range", "[notify]\ncontext_high = { threshold = 101 }\n",
			Error{Key: "notify.context_high.threshold", Msg: "1..=100"}},
		{"stall without threshold", "[notify]\nstall = {}\n", Error{Key: "notify.stall", Msg: "threshold_s is required"}},
		{"stall zero", "[notify]\nstall = { threshold_s = 0 }\n", Error{Key: "notify.stall.threshold_s", Msg: "at least 1"}},
		{"wrapper_ref", "[install]\nwrapper_ref = \"home\"\n", Error{Key: "install.wrapper_ref", Msg: `must be "bare" or "absolute", got "home"`}},
		{"negative fold", "[fold]\ndwell_secs = -1\n", Error{Key: "fold.dwell_secs", Msg: "at least 0"}},
		{"zero sweep", "[daemon]\nsweep_secs = 0\n", Error{Key: "daemon.sweep_secs", Msg: "at least 1"}},
		{"zero connections", "[serve]\nmax_connections = 0\n", Error{Key: "serve.max_connections", Msg: "at least 1"}},
		{"http listen", "[serve.http]\nlisten = \"7878\"\n", Error{Key: "serve.http.listen", Msg: "not a host:port address"}},
		{"http tls half", "[serve.http]\ntls_cert = \"c.pem\"\n", Error{Key: "serve.http.tls_cert", Msg: "set both or neither"}},
		{"http public_url", "[serve.http]\npublic_url = \"phone.example\"\n", Error{Key: "serve.http.public_url", Msg: "not an http(s) URL"}},
		{"agent without name", "[[agent]]\nenabled = false\n", Error{Key: "agent[0].name", Msg: "is required"}},
		{"agent twice", "[[agent]]\nname = \"a\"\n[[agent]]\nname = \"a\"\n", Error{Key: "agent[1].name", Msg: "already configured"}},
		{"agent process path", "[[agent]]\nname = \"a\"\nprocess_names = [\"/bin/a\"]\n", Error{Key: "agent[0].process_names", Msg: "not a basename"}},
		{"api without base", "[api.opencode]\n", Error{Key: "api.opencode", Msg: "api_base is required"}},
		{"api not a url", "[api.opencode]\napi_base = \"127.0.0.1:4096\"\n", Error{Key: "api.opencode.api_base", Msg: "http://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse([]byte(tt.src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if tt.want.Line != 0 && e.Line != tt.want.Line {
				t.Errorf("line = %d, want %d (%v)", e.Line, tt.want.Line, err)
			}
			if e.Key != tt.want.Key && tt.want.Key != "" {
				t.Errorf("key = %q, want %q (%v)", e.Key, tt.want.Key, err)
			}
			if !strings.Contains(e.Msg, tt.want.Msg) {
				t.Errorf("msg = %q, want it to contain %q", e.Msg, tt.want.Msg)
			}
		})
	}
}

func TestLoadErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	write(t, p, "[fold]\ndwell_secs = \"3\"\n")
	_, err := Load(p)
	want := "config " + p + ":2: fold.dwell_secs: expected integer, found string"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	write(t, p, "[notify.done]\ncomand = \"x\"\n")
	_, err = Load(p)
	want = "config " + p + ": notify.done.comand: unknown key"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = Load(filepath.Join(dir, "nope.toml"))
	want = "config " + filepath.Join(dir, "nope.toml") + ": file does not exist"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	xdg := filepath.Join(root, "xdg")
	homeCfg := filepath.Join(home, ".config", "tma", "config.toml")
	xdgCfg := filepath.Join(xdg, "tma", "config.toml")
	emptyXDG := filepath.Join(root, "empty-xdg")
	write(t, homeCfg, "")
	write(t, xdgCfg, "")

	tests := []struct {
		name         string
		flag         string
		env          map[string]string
		home         string
		want         string
		wantExplicit bool
	}{
		{"flag beats everything", "/f.toml", map[string]string{"TMA_CONFIG": "/e.toml", "XDG_CONFIG_HOME": xdg}, home, "/f.toml", true},
		{"TMA_CONFIG beats XDG and home", "", map[string]string{"TMA_CONFIG": "/e.toml", "XDG_CONFIG_HOME": xdg}, home, "/e.toml", true},
		{"explicit need not exist", "", map[string]string{"TMA_CONFIG": "/missing.toml"}, home, "/missing.toml", true},
		{"empty TMA_CONFIG is unset", "", map[string]string{"TMA_CONFIG": "", "XDG_CONFIG_HOME": xdg}, home, xdgCfg, false},
		{"XDG beats home", "", map[string]string{"XDG_CONFIG_HOME": xdg}, home, xdgCfg, false},
		{"XDG without a file falls to home", "", map[string]string{"XDG_CONFIG_HOME": emptyXDG}, home, homeCfg, false},
		{"relative XDG ignored", "", map[string]string{"XDG_CONFIG_HOME": "rel/xdg"}, home, homeCfg, false},
		{"home", "", nil, home, homeCfg, false},
		{"nothing anywhere", "", map[string]string{"XDG_CONFIG_HOME": emptyXDG}, filepath.Join(root, "nohome"), "", false},
		{"no home", "", nil, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, explicit := Resolve(tt.flag, envOf(tt.env), tt.home)
			if got != tt.want || explicit != tt.wantExplicit {
				t.Errorf("Resolve = %q, %v; want %q, %v", got, explicit, tt.want, tt.wantExplicit)
			}
			// What a reloader watches covers whatever Resolve may pick.
			cands := Candidates(tt.flag, envOf(tt.env), tt.home)
			if got != "" && !slices.Contains(cands, got) {
				t.Errorf("Candidates = %q lacks the resolved %q", cands, got)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	env := envOf(map[string]string{"XDG_CONFIG_HOME": "/x"})
	tests := []struct {
		name string
		flag string
		env  Env
		home string
		want []string
	}{
		{"a flag is the only candidate", "/f.toml", env, "/h", []string{"/f.toml"}},
		{"so is TMA_CONFIG", "", envOf(map[string]string{"TMA_CONFIG": "/e.toml", "XDG_CONFIG_HOME": "/x"}), "/h", []string{"/e.toml"}},
		{"XDG then home, existing or not", "", env, "/h", []string{"/x/tma/config.toml", "/h/.config/tma/config.toml"}},
		{"relative XDG ignored", "", envOf(map[string]string{"XDG_CONFIG_HOME": "rel"}), "/h", []string{"/h/.config/tma/config.toml"}},
		{"nothing", "", envOf(nil), "", nil},
	}
	for _, tt := range tests {
		if got := Candidates(tt.flag, tt.env, tt.home); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Candidates = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLoadResolved(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")

	// Zero-config: nothing anywhere is the defaults.
	c, path, err := LoadResolved("", envOf(map[string]string{"HOME": home}))
	if err != nil || path != "" {
		t.Fatalf("zero-config: %v, %q", err, path)
	}
	if diff := cmp.Diff(Default(), c); diff != "" {
		t.Errorf("zero-config (-want +got):\n%s", diff)
	}

	// The home file is found through HOME.
	homeCfg := filepath.Join(home, ".config", "tma", "config.toml")
	write(t, homeCfg, "[fold]\ndwell_secs = 7\n")
	c, path, err = LoadResolved("", envOf(map[string]string{"HOME": home}))
	if err != nil || path != homeCfg || c.Fold.DwellSecs != 7 {
		t.Fatalf("home: %v, %q, %+v", err, path, c)
	}

	// A named file that does not exist is an error naming it and who named it.
	missing := filepath.Join(root, "missing.toml")
	_, _, err = LoadResolved(missing, envOf(map[string]string{"HOME": home}))
	if want := "config " + missing + ": file does not exist (named by --config)"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, _, err = LoadResolved("", envOf(map[string]string{"HOME": home, "TMA_CONFIG": missing}))
	if want := "config " + missing + ": file does not exist (named by TMA_CONFIG)"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}

	// A malformed file never falls back to defaults.
	write(t, homeCfg, "[fold]\nnope = 1\n")
	if c, _, err = LoadResolved("", envOf(map[string]string{"HOME": home})); err == nil || c != nil {
		t.Errorf("malformed: got %v, %v", c, err)
	}
}

func TestTmuxBin(t *testing.T) {
	withBin := Default()
	withBin.Tmux.Bin = "tmate"
	tests := []struct {
		name string
		c    *Config
		env  map[string]string
		want string
	}{
		{"default", Default(), nil, "tmux"},
		{"config", withBin, nil, "tmate"},
		{"env beats config", withBin, map[string]string{"TMA_TMUX_BIN": "/opt/tmux"}, "/opt/tmux"},
		{"env beats default", Default(), map[string]string{"TMA_TMUX_BIN": "tmux3.6"}, "tmux3.6"},
		{"empty env is unset", withBin, map[string]string{"TMA_TMUX_BIN": ""}, "tmate"},
	}
	for _, tt := range tests {
		if got := tt.c.TmuxBin(envOf(tt.env)); got != tt.want {
			t.Errorf("%s: TmuxBin = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestNotifyFromEvent(t *testing.T) {
	on := Default()
	on.Notify.FromEvent = true
	tests := []struct {
		name string
		c    *Config
		env  map[string]string
		want bool
	}{
		{"unset keeps false", Default(), nil, false},
		{"unset keeps true", on, nil, true},
		{"1 turns on", Default(), map[string]string{"TMA_NOTIFY_FROM_EVENT": "1"}, true},
		{"0 turns off", on, map[string]string{"TMA_NOTIFY_FROM_EVENT": "0"}, false},
		{"empty turns off", on, map[string]string{"TMA_NOTIFY_FROM_EVENT": ""}, false},
		{"true is not 1", Default(), map[string]string{"TMA_NOTIFY_FROM_EVENT": "true"}, false},
		{"1 keeps on", on, map[string]string{"TMA_NOTIFY_FROM_EVENT": "1"}, true},
	}
	for _, tt := range tests {
		if got := tt.c.NotifyFromEvent(envOf(tt.env)); got != tt.want {
			t.Errorf("%s: NotifyFromEvent = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNotifyCommand(t *testing.T) {
	c, err := parse([]byte(`[notify]
command = "global"
on = ["blocked", "done"]
context_high = { threshold = 75 }
stall = { threshold_s = 900, command = "stall-cmd" }
[notify.blocked]
command = "blocked-cmd"
[notify.done]
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		trigger string
		env     map[string]string
		want    string
	}{
		{"blocked", nil, "blocked-cmd"},
		{"done", nil, "global"}, // sub-table without command falls back
		{"context_high", nil, "global"},
		{"stall", nil, "stall-cmd"},
		{"", nil, "global"}, // a detached action's completion
		{"blocked", map[string]string{"TMA_NOTIFY_CMD": "sink"}, "sink"},
		{"done", map[string]string{"TMA_NOTIFY_CMD": "sink"}, "sink"},
		{"stall", map[string]string{"TMA_NOTIFY_CMD": "sink"}, "sink"},
		{"", map[string]string{"TMA_NOTIFY_CMD": "sink"}, "sink"},
		{"blocked", map[string]string{"TMA_NOTIFY_CMD": ""}, ""}, // set at all: empty silences
	}
	for _, tt := range tests {
		if got := c.NotifyCommand(tt.trigger, envOf(tt.env)); got != tt.want {
			t.Errorf("NotifyCommand(%q, %v) = %q, want %q", tt.trigger, tt.env, got, tt.want)
		}
	}
	if got := Default().NotifyCommand("blocked", envOf(nil)); got != "" {
		t.Errorf("default command = %q, want none", got)
	}
	for trig, want := range map[string]bool{"blocked": true, "done": true, "context_high": true, "stall": true, "idle": false} {
		if got := c.NotifyFires(trig); got != want {
			t.Errorf("NotifyFires(%q) = %v, want %v", trig, got, want)
		}
	}
	for trig, want := range map[string]bool{"blocked": true, "done": false, "context_high": false, "stall": false} {
		if got := Default().NotifyFires(trig); got != want {
			t.Errorf("default NotifyFires(%q) = %v, want %v", trig, got, want)
		}
	}
}

func TestAccessors(t *testing.T) {
	c := Default()
	if got := c.StatusStyle("blocked"); got != (Style{"⚑", "red"}) {
		t.Errorf("StatusStyle(blocked) = %v", got)
	}
	if got := c.StatusStyle("bogus"); got != (Style{"?", "colour244"}) {
		t.Errorf("StatusStyle(bogus) = %v", got)
	}
	if got := c.PickerStyle("unknown"); got != (Style{"?", "darkgray"}) {
		t.Errorf("PickerStyle(unknown) = %v", got)
	}
	for _, tt := range []struct{ in, home, want string }{
		{"~/.local/state/tma/n.jsonl", "/home/u", "/home/u/.local/state/tma/n.jsonl"},
		{"~", "/home/u", "/home/u"},
		{"~bob/x", "/home/u", "~bob/x"},
		{"/abs/x", "/home/u", "/abs/x"},
		{"~/x", "", "~/x"},
		{"", "/home/u", ""},
	} {
		if got := ExpandHome(tt.in, tt.home); got != tt.want {
			t.Errorf("ExpandHome(%q, %q) = %q, want %q", tt.in, tt.home, got, tt.want)
		}
	}
	c.Notify.Log = "~/n.jsonl"
	c.Act.Log = "~/a.jsonl"
	if c.NotifyLog("/h") != "/h/n.jsonl" || c.ActLog("/h") != "/h/a.jsonl" {
		t.Errorf("logs: %q %q", c.NotifyLog("/h"), c.ActLog("/h"))
	}
	if !c.ModelRecognized("gemini-2.5-pro") || c.ModelRecognized("gpt-5-codex") {
		t.Error("ModelRecognized")
	}
	c.Agents = []Agent{{Name: "codex", Enabled: false}}
	if a, ok := c.Agent("codex"); !ok || a.Enabled {
		t.Errorf("Agent(codex) = %v, %v", a, ok)
	}
	if _, ok := c.Agent("claude"); ok {
		t.Error("Agent(claude) found")
	}
	c.API = map[string]API{"opencode": {APIBase: "http://h:1"}}
	if c.APIBase("opencode") != "http://h:1" || c.APIBase("claude") != "" {
		t.Error("APIBase")
	}
}
