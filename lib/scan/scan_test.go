package scan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/stamp"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/manifests"
)

const (
	now   = int64(1_800_000_000_000) // epoch ms
	decay = int64(60_000)            // DefaultTuning's hook_decay_secs
)

func ms(v int64) string { return strconv.FormatInt(v, 10) }

// claim is the tuple a hook writes: stamped_at equal to evidence_at.
func claim(state string, at int64) map[string]string {
	return map[string]string{"@agent_name": "claude", "@agent_state": state, "@agent_source": "hook",
		"@agent_session": "s-1", "@agent_evidence_at": ms(at), "@agent_since": ms(at), "@agent_stamped_at": ms(at)}
}

// captured is the tuple a capture published at at.
func captured(state string, at int64) map[string]string {
	return map[string]string{"@agent_name": "claude", "@agent_state": state, "@agent_source": "capture",
		"@agent_evidence_at": ms(at), "@agent_since": ms(at), "@agent_stamped_at": ms(at)}
}

// with returns o with the given options set (or removed, for "").
func with(o map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range o {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func agentPane(opts map[string]string, activity int64) *record.Pane {
	return &record.Pane{NowMS: now, Pane: "%1", Agent: "claude", Identity: "process", AgentAlive: true,
		ForegroundIsAgent: true, Scroll: -1, WindowActivity: activity, Opts: opts}
}

func TestNeedsCapture(t *testing.T) {
	quiet := now/1000 - 5 // the screen last moved 5 s ago
	aged := now - decay - 30_000
	cases := []struct {
		name     string
		opts     map[string]string
		activity int64
		tune     fold.Tuning
		edit     func(*record.Pane)
		want     bool
	}{
		{name: "never stamped", opts: map[string]string{}, activity: quiet, want: true},
		{name: "stamped for another agent", opts: with(captured("idle", now-2000), "@agent_name", "codex"), activity: quiet, want: true},
		{name: "quiet since the stamp", opts: captured("idle", now-2000), activity: quiet, want: false},
		{name: "stamped 60 s in the future (a clock step back)", opts: captured("idle", now+60_000), activity: quiet, want: true},
		{name: "activity in the stamp's own second", opts: captured("idle", now-2000), activity: (now - 2000) / 1000, want: true},
		{name: "activity after the stamp", opts: captured("idle", now-2000), activity: now / 1000, want: true},
		{name: "working is always read", opts: captured("working", now-2000), activity: quiet, want: true},
		{name: "inside a dwell", opts: with(captured("working", now-2000), "@tma_idle_since", ms(now-1000)), activity: quiet, want: true},
		{name: "waiting on an unblock confirmation", opts: with(claim("blocked", now-5000), "@tma_unblock_seen", ms(now-1000)), activity: quiet, want: true},
		{name: "fresh hook claim, quiet", opts: claim("idle", now-10_000), activity: quiet - 20, want: false},
		{name: "aged hook claim no capture has read since", opts: claim("idle", aged), activity: quiet - 200, want: true},
		{name: "aged hook claim a capture held after it aged, quiet",
			opts: with(claim("idle", aged), "@agent_stamped_at", ms(aged+decay+1000)), activity: quiet - 200, want: false},
		{name: "aged hook claim confirmed, then the screen moved",
			opts: with(claim("idle", aged), "@agent_stamped_at", ms(aged+decay+1000)), activity: (aged + decay + 1000) / 1000, want: true},
		{name: "a capture before the claim aged does not confirm it",
			opts: with(claim("idle", aged), "@agent_stamped_at", ms(aged+decay-1000)), activity: quiet - 200, want: true},
		{name: "a confirmation under a shorter decay window than today's",
			opts: with(claim("idle", aged), "@agent_stamped_at", ms(aged+decay+1000)), activity: quiet - 200,
			tune: fold.Tuning{DwellSecs: 3, HookDecaySecs: 80, BlockedDecaySecs: 300}, want: true},
		{name: "blocked claim past hook_decay_secs but inside blocked_decay_secs",
			opts: claim("blocked", aged), activity: quiet - 200, want: false},
		{name: "blocked claim past blocked_decay_secs",
			opts: claim("blocked", now-301_000), activity: quiet - 400, want: true},
		{name: "blocked claim past blocked_decay_secs, confirmed",
			opts: with(claim("blocked", now-400_000), "@agent_stamped_at", ms(now-80_000)), activity: quiet - 400, want: false},
		{name: "quiet, read under this manifest", opts: with(captured("idle", now-2000), "@agent_hash", "d1"), activity: quiet,
			edit: func(p *record.Pane) { p.Manifest = "d1" }, want: false},
		{name: "quiet, but the manifest changed since the screen was read", opts: with(captured("idle", now-2000), "@agent_hash", "d1"), activity: quiet,
			edit: func(p *record.Pane) { p.Manifest = "d2" }, want: true},
		{name: "quiet, read before digests were kept", opts: with(captured("idle", now-2000), "@agent_hash", "1"), activity: quiet,
			edit: func(p *record.Pane) { p.Manifest = "d1" }, want: true},
		{name: "quiet, no screen read behind the tuple (a hook's claim)", opts: claim("idle", now-10_000), activity: quiet - 20,
			edit: func(p *record.Pane) { p.Manifest = "d1" }, want: false},
		{name: "scrolled", opts: map[string]string{}, activity: quiet, edit: func(p *record.Pane) { p.Scroll = 3 }, want: false},
		{name: "agent not in the foreground", opts: map[string]string{}, activity: quiet, edit: func(p *record.Pane) { p.ForegroundIsAgent = false }, want: false},
		{name: "remote shell", opts: map[string]string{}, activity: quiet, edit: func(p *record.Pane) { p.Class = record.ClassRemote }, want: false},
		{name: "dead pane", opts: map[string]string{}, activity: quiet, edit: func(p *record.Pane) { p.Dead = true }, want: false},
		{name: "no agent", opts: map[string]string{}, activity: quiet, edit: func(p *record.Pane) { p.Agent = "" }, want: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := agentPane(c.opts, c.activity)
			if c.edit != nil {
				c.edit(p)
			}
			tune := c.tune
			if tune == (fold.Tuning{}) {
				tune = fold.DefaultTuning
			}
			if got := needsCapture(p, tune); got != c.want {
				t.Fatalf("needsCapture = %v, want %v", got, c.want)
			}
			if !c.want && capturable(p) && p.CaptureSkipped != "quiet" {
				t.Fatalf("capture_skipped = %q, want quiet", p.CaptureSkipped)
			}
		})
	}
}

// claudeIdle folds to idle with the bundled claude manifest.
var claudeIdle = strings.Join([]string{
	"> do the thing", "", "● Done.", "", "✻ Worked for 6s", "", strings.Repeat("─", 40), "❯ ", strings.Repeat("─", 40), "  ? for shortcuts",
}, "\n") + "\n"

// TestAgedHookClaimSettles runs the pane of an aged hook claim through
// skip rule, fold and stamp, cycle after cycle, applying each commit to its
// options as tmux would: the first cycle after the claim aged reads the
// screen and refreshes the stamp, the quiet cycles after it read and write
// nothing, and the claim still expires the cycle its screen moves.
func TestAgedHookClaimSettles(t *testing.T) {
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := ms.Get("claude")
	if a == nil {
		t.Fatal("no bundled claude manifest")
	}
	tune := fold.DefaultTuning
	claimAt := now - decay - 30_000
	opts := claim("idle", claimAt)
	activity := claimAt/1000 - 1 // the screen has not moved since the claim

	type step struct {
		at       int64
		screen   string // "" keeps the screen
		capture  bool
		writes   bool
		state    string
		refreshd bool // @agent_stamped_at moved to this cycle
	}
	steps := []step{
		{at: now, capture: true, writes: true, state: "idle", refreshd: true},
		{at: now + 1000, capture: false, writes: false, state: "idle"},
		{at: now + 2000, capture: false, writes: false, state: "idle"},
		{at: now + 600_000, capture: false, writes: false, state: "idle"},
		// The agent starts on its own (no event): working chrome expires the
		// claim at once, since claude's manifest sees idle on screen.
		{at: now + 601_000, screen: claudeWorking, capture: true, writes: true, state: "working", refreshd: true},
	}
	for i, s := range steps {
		if s.screen != "" {
			activity = s.at / 1000
		}
		screen := claudeIdle
		if s.screen != "" {
			screen = s.screen
		}
		p := agentPane(opts, activity)
		p.NowMS = s.at
		p.Identity, p.AgentPID = "hook", 42
		if got := needsCapture(p, tune); got != s.capture {
			t.Fatalf("cycle %d: needsCapture = %v, want %v (opts %v)", i, got, s.capture, opts)
		}
		if s.capture {
			p.Capture = &record.Capture{AtMS: s.at, Text: screen}
		}
		p.Verdict = fold.Fold(p, a, tune, false)
		cyc := &record.Cycle{NowMS: s.at, Server: "/tmp/x"}
		pl, err := stamp.Build(cyc, []*record.Pane{p}, s.at) // the poll hint is fresh
		if err != nil {
			t.Fatal(err)
		}
		if got := len(pl.Lines) > 0; got != s.writes {
			t.Fatalf("cycle %d: writes %v, want %v: %q", i, got, s.writes, pl.Lines)
		}
		before := opts["@agent_stamped_at"]
		opts = apply(opts, p.Verdict, p, s.at)
		if opts["@agent_state"] != s.state {
			t.Fatalf("cycle %d: state %q, want %q (%s)", i, opts["@agent_state"], s.state, p.Verdict.Winning.Label)
		}
		if moved := opts["@agent_stamped_at"] != before; moved != s.refreshd {
			t.Fatalf("cycle %d: stamped_at %s -> %s, want moved=%v", i, before, opts["@agent_stamped_at"], s.refreshd)
		}
	}
}

// claudeWorking is claude's spinner line over its prompt box.
var claudeWorking = strings.Join([]string{
	"> do the thing", "", "✶ Pondering… (5s · ↓ 120 tokens)", "", strings.Repeat("─", 40), "❯ ", strings.Repeat("─", 40), "  ? for shortcuts",
}, "\n") + "\n"

// apply is what the committed plan leaves in the pane's options: the
// verdict's tuple on a publish, the stamp alone on a refreshing hold.
func apply(o map[string]string, v *record.Verdict, p *record.Pane, at int64) map[string]string {
	switch {
	case v.Action == record.ActPublish:
		o = with(o, "@agent_state", v.State, "@agent_source", v.Source, "@agent_evidence_at", ms(v.EvidenceAt),
			"@agent_stamped_at", ms(max(at, v.EvidenceAt, v.Since)))
	case v.Action == record.ActHold && v.Refresh && p.Capture != nil:
		o = with(o, "@agent_stamped_at", ms(max(at, p.Capture.AtMS)))
	}
	for _, name := range record.AnchorNames {
		o = with(o, name, "")
		if x := v.Anchors[name]; x > 0 {
			o = with(o, name, ms(x))
		}
	}
	return o
}

// The fold's reading of a future-dated claim and the guards' settle on the
// same window.
func TestFutureSkewAgrees(t *testing.T) {
	if fold.FutureSkewMS != tmux.FutureSkewMS {
		t.Fatalf("fold.FutureSkewMS = %d, tmux.FutureSkewMS = %d", fold.FutureSkewMS, tmux.FutureSkewMS)
	}
}

func TestRoots(t *testing.T) {
	panes := []tmux.PaneInfo{{ID: "%1", PID: 10}, {ID: "%2", PID: 20, Dead: true}, {ID: "%3", PID: 30}, {ID: "%4"}}
	if got := roots(panes, ""); len(got) != 2 || got[0] != 10 || got[1] != 30 {
		t.Fatalf("roots = %v, want [10 30] (dead and pid-less panes have no tree)", got)
	}
	if got := roots(panes, "%3"); len(got) != 1 || got[0] != 30 {
		t.Fatalf("scoped roots = %v, want [30]", got)
	}
}

// TestFailedWalkKeepsEveryTuple: a cycle whose process walk failed (a
// tmpfs over /proc, no ps) cannot tell who runs in a pane, so it writes
// nothing at all: no clear of a process-identified pane (its done mark and
// @agent_since included), no verdict for a hook-registered one, and its
// rows say what the options say. doctor reads the failure from Procs.
func TestFailedWalkKeepsEveryTuple(t *testing.T) {
	set, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	quiet := now/1000 - 5
	sum := "working:1 idle:2" // the rollups as the last good cycle wrote them
	panes := []tmux.PaneInfo{
		{ID: "%1", PID: 10, Command: "claude", WindowActivity: quiet, WindowID: "@1", SessionID: "$1", WindowSummary: sum, SessionSummary: sum,
			Opts: with(captured("idle", now-60_000), "@agent_attention", "1", "@agent_pid", "11", "@agent_hash", "1")},
		{ID: "%2", PID: 20, Command: "sleep", WindowActivity: quiet, WindowID: "@1", SessionID: "$1", WindowSummary: sum, SessionSummary: sum,
			Opts: with(claim("idle", now-30_000), "@agent_pid", "21")},
		{ID: "%3", PID: 30, Command: "claude", WindowActivity: quiet, WindowID: "@1", SessionID: "$1", WindowSummary: sum, SessionSummary: sum, Opts: map[string]string{}},
		{ID: "%4", PID: 40, Command: "sh", WindowActivity: quiet, WindowID: "@1", SessionID: "$1", WindowSummary: sum, SessionSummary: sum,
			Opts: with(captured("working", now-5000), "@tma_idle_since", ms(now-1000))},
	}
	var obs []*record.Pane
	for i := range panes {
		p := observe(&panes[i], nil, set, now) // nil: the walk failed
		p.Procs = -1
		p.ViewerActivity = now / 1000 // someone typed: still no clear
		if needsCapture(p, fold.DefaultTuning) {
			t.Errorf("%s: a pane is captured under a failed walk", p.Pane)
		}
		obs = append(obs, p)
	}
	fold.Pending(obs, set.Get, fold.DefaultTuning, false)
	cyc := &record.Cycle{NowMS: now, Server: "/tmp/x"}
	pl, err := stamp.Build(cyc, obs, now) // the poll hint is fresh
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Lines) > 0 {
		t.Errorf("a failed walk wrote:\n%s", strings.Join(pl.Lines, "\n"))
	}
	rows := map[string]string{}
	for _, r := range pl.Rows {
		s := r.Row.State
		if r.Row.Done {
			s += " done"
		}
		rows[r.Row.Pane] = s
	}
	want := map[string]string{"%1": "idle done", "%2": "idle", "%4": "working"}
	if len(rows) != len(want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}
	for p, w := range want {
		if rows[p] != w {
			t.Errorf("%s: row %q, want %q (the stored tuple)", p, rows[p], w)
		}
	}
}

// TestManifestEditRereadsAQuietPane: a quiet pane's stored verdict is
// reused until its manifest changes (issue 27, item 3). The edit (a user
// file shadowing the bundled claude) invalidates the skip once: that cycle
// reads the screen under the new rules and keeps the manifest's digest in
// @agent_hash, and the cycle after it is quiet again.
func TestManifestEditRereadsAQuietPane(t *testing.T) {
	bundled, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := manifests.Agents.ReadFile("agents/claude.toml")
	if err != nil {
		t.Fatal(err)
	}
	rule := "label = \"option-1-cursor\"\nstate = \"blocked\"\ndetail = \"permission\""
	if !strings.Contains(string(src), rule) {
		t.Fatalf("claude.toml has no %q", rule)
	}
	dir := t.TempDir()
	edited := strings.Replace(string(src), rule, strings.Replace(rule, `"permission"`, `"custom-2"`, 1), 1)
	if err := os.WriteFile(filepath.Join(dir, "claude.toml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	user, err := manifest.Load(manifest.LoadOptions{UserDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d1, d2 := bundled.Get("claude").Digest, user.Get("claude").Digest; d1 == "" || d1 == d2 {
		t.Fatalf("digests %q and %q: want two, distinct", d1, d2)
	}
	procs := proc.FromList([]proc.Proc{{PID: 10, PPID: 1, PGID: 10, TPGID: 11, Comm: "sh"}, {PID: 11, PPID: 10, PGID: 11, TPGID: 11, Comm: "claude"}})
	blocked := " Do you want to proceed?\n ❯ 1. Yes\n   2. No\n"
	stampedAt := now - 10_000
	opts := with(captured("blocked", stampedAt), "@agent_detail", "permission", "@agent_pid", "11", "@agent_hash", bundled.Get("claude").Digest)
	activity := stampedAt/1000 - 1 // nothing printed since

	steps := []struct {
		set     *manifest.Set
		capture bool
		detail  string
	}{
		{bundled, false, "permission"}, // quiet: the stored verdict stands
		{user, true, "custom-2"},       // the edit: read once, under the new rules
		{user, false, "custom-2"},      // quiet again
	}
	for i, s := range steps {
		at := now + int64(i)*1000
		pi := tmux.PaneInfo{ID: "%1", PID: 10, Command: "claude", WindowActivity: activity, Opts: opts}
		p := observe(&pi, procs, s.set, at)
		if got := needsCapture(p, fold.DefaultTuning); got != s.capture {
			t.Fatalf("cycle %d: needsCapture = %v, want %v (manifest %q, @agent_hash %q)", i, got, s.capture, p.Manifest, opts["@agent_hash"])
		}
		if s.capture {
			p.Capture = &record.Capture{AtMS: at, Text: blocked}
		}
		p.Verdict = fold.Fold(p, s.set.Get("claude"), fold.DefaultTuning, false)
		pl, err := stamp.Build(&record.Cycle{NowMS: at, Server: "/tmp/x"}, []*record.Pane{p}, at)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Join(pl.Lines, "\n")
		if !s.capture && lines != "" {
			t.Fatalf("cycle %d: a skipped pane wrote: %s", i, lines)
		}
		if s.capture {
			if want := "@agent_hash '\\''" + s.set.Get("claude").Digest + "'\\''"; !strings.Contains(lines, want) {
				t.Fatalf("cycle %d: the commit does not keep the digest (%s):\n%s", i, want, lines)
			}
			opts = with(apply(opts, p.Verdict, p, at), "@agent_detail", p.Verdict.Detail, "@agent_hash", s.set.Get("claude").Digest)
		}
		if len(pl.Rows) != 1 || pl.Rows[0].Row.Detail == nil || *pl.Rows[0].Row.Detail != s.detail {
			t.Fatalf("cycle %d: rows %+v, want detail %s", i, pl.Rows, s.detail)
		}
	}
}
