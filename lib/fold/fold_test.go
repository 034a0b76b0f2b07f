package fold

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
)

const testManifest = `
min_engine_version = "0.1"
[identity]
process_names = ["agent"]
[hooks]
covers = ["working", "idle", "blocked", "lifecycle"]
[capture]
visible = ["working", "blocked"]
[[rules]]
state = "blocked"
detail = "permission"
priority = 100
region = "tail_lines(10)"
match = { line_regex = '^\s*> 1\. Yes' }
[[rules]]
state = "working"
region = "tail_lines(10)"
match = { contains = "esc to interrupt" }
[[rules]]
state = "idle"
region = "tail_lines(3)"
match = { line_regex = '^\$ $' }
[[rules]]
state = "idle"
region = "tail_lines(10)"
match = { contains = "HISTORY" }
skip_state_update = true
`

func agent(t *testing.T) *manifest.Agent {
	t.Helper()
	a, err := manifest.Parse("agent", "test", []byte(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

const (
	blockedScreen = "Do you want to proceed?\n  > 1. Yes\n    2. No\n"
	workingScreen = "thinking hard\n(esc to interrupt)\n$ \n"
	idleScreen    = "all done\n$ \n"
	blankScreen   = "just some output\n"
	historyScreen = "HISTORY\n$ \n"
	now           = int64(1_800_000_000_000)
)

type prior map[string]string

func stamped(state, source string, evidenceAgo, sinceAgo int64) prior {
	return prior{"@agent_name": "agent", "@agent_state": state, "@agent_source": source,
		"@agent_evidence_at": ms(now - evidenceAgo), "@agent_since": ms(now - sinceAgo),
		"@agent_stamped_at": ms(now - evidenceAgo)}
}

func ms(v int64) string { return strconv.FormatInt(v, 10) }

func (p prior) with(k, v string) prior {
	q := prior{}
	for a, b := range p {
		q[a] = b
	}
	q[k] = v
	return q
}

func pane(opts prior, screen string) *record.Pane {
	p := &record.Pane{NowMS: now, Pane: "%1", Agent: "agent", Identity: "process", AgentPID: 42,
		AgentAlive: true, ForegroundIsAgent: true, Scroll: -1, Height: 24, Opts: opts}
	if screen != "" {
		p.Capture = &record.Capture{AtMS: now, Text: screen}
	}
	return p
}

func TestFold(t *testing.T) {
	cases := []struct {
		name string
		p    *record.Pane
		tune Tuning
		// want is action state[/detail] source, plus flags: +attn -attn +reset idle=N refresh
		want string
	}{
		{"fresh blocked", pane(prior{}, blockedScreen), DefaultTuning, "publish blocked/permission capture +attn +reset"},
		{"fresh working", pane(prior{}, workingScreen), DefaultTuning, "publish working capture +reset"},
		{"fresh idle", pane(prior{}, idleScreen), DefaultTuning, "publish idle capture +reset"},
		{"no rule, nothing to hold", pane(prior{}, blankScreen), DefaultTuning, "publish unknown capture +reset"},
		{"no rule holds the previous verdict", pane(stamped("working", "capture", 1000, 5000), blankScreen), DefaultTuning, "hold working capture refresh"},
		{"output alone is not working", pane(stamped("idle", "capture", 1000, 5000), "lots of output scrolling by\n"), DefaultTuning, "hold idle capture refresh"},
		{"same verdict refreshes", pane(stamped("blocked", "capture", 1000, 5000).with("@agent_detail", "permission"), blockedScreen), DefaultTuning, "hold blocked/permission capture refresh"},
		{"working to blocked at once", pane(stamped("working", "capture", 1000, 5000), blockedScreen), DefaultTuning, "publish blocked/permission capture +attn +reset"},
		{"idle to working at once", pane(stamped("idle", "capture", 1000, 5000), workingScreen), DefaultTuning, "publish working capture +reset"},
		{"dwell starts", pane(stamped("working", "capture", 1000, 5000), idleScreen), DefaultTuning, "hold working capture refresh idle=0s"},
		{"dwell running", pane(stamped("working", "capture", 1000, 5000).with("@tma_idle_since", ms(now-2000)), idleScreen), DefaultTuning, "hold working capture refresh idle=2s"},
		{"dwell over: done", pane(stamped("working", "capture", 1000, 5000).with("@tma_idle_since", ms(now-3000)), idleScreen), DefaultTuning, "publish idle capture +attn +reset"},
		{"no dwell configured", pane(stamped("working", "capture", 1000, 5000), idleScreen), Tuning{HookDecaySecs: 60, BlockedDecaySecs: 300}, "publish idle capture +attn +reset"},
		{"working chrome drops the dwell anchor", pane(stamped("working", "capture", 1000, 5000).with("@tma_idle_since", ms(now-2000)), workingScreen), DefaultTuning, "hold working capture refresh"},
		{"blocked to idle raises nothing", pane(stamped("blocked", "capture", 1000, 5000).with("@agent_detail", "permission"), idleScreen), DefaultTuning, "publish idle capture +reset"},
		// A turn that never worked is not done: the block's mark goes with it.
		{"blocked to idle on screen retires the block's mark", pane(stamped("blocked", "capture", 1000, 5000).with("@agent_attention", "1"), idleScreen), DefaultTuning, "publish idle capture -attn +reset"},
		{"a blocked claim released to idle retires its mark", pane(stamped("blocked", "hook", 5000, 5000).with("@agent_attention", "1").with("@tma_unblock_seen", ms(now-1000)), idleScreen), DefaultTuning, "publish idle capture -attn +reset override"},
		{"a blocked claim released to working keeps its mark", pane(stamped("blocked", "hook", 5000, 5000).with("@agent_attention", "1").with("@tma_unblock_seen", ms(now-1000)), workingScreen), DefaultTuning, "publish working capture +reset override"},
		{"working to idle after the dwell is done", pane(stamped("working", "capture", 1000, 5000).with("@agent_attention", "1").with("@tma_idle_since", ms(now-3000)), idleScreen), DefaultTuning, "publish idle capture +attn +reset"},
		{"history view freezes", pane(stamped("working", "capture", 1000, 5000), historyScreen), DefaultTuning, "hold working capture refresh"},

		// Gates.
		{"foreground not agent caps at unknown", func() *record.Pane {
			p := pane(stamped("working", "capture", 1000, 5000), "")
			p.ForegroundIsAgent, p.Command = false, "vim"
			return p
		}(), DefaultTuning, "publish unknown process +reset"},
		{"foreground not agent keeps a hook claim while the pid lives", func() *record.Pane {
			p := pane(stamped("working", "hook", 1000, 5000), "")
			p.ForegroundIsAgent, p.Command = false, "vim"
			return p
		}(), DefaultTuning, "hold working hook"},
		{"hook claim dies with the pid", func() *record.Pane {
			p := pane(stamped("working", "hook", 1000, 5000), "")
			p.ForegroundIsAgent, p.AgentAlive, p.Command = false, false, "bash"
			return p
		}(), DefaultTuning, "publish unknown process +reset"},
		{"scrolled freezes", func() *record.Pane {
			p := pane(stamped("working", "capture", 1000, 5000), blockedScreen)
			p.Scroll = 3
			return p
		}(), DefaultTuning, "hold working capture"},
		{"copy mode at offset 0 does not freeze", func() *record.Pane {
			p := pane(stamped("working", "capture", 1000, 5000), blockedScreen)
			p.Scroll, p.InMode = 0, true
			return p
		}(), DefaultTuning, "publish blocked/permission capture +attn +reset"},
		{"skipped capture holds without a write", pane(stamped("idle", "capture", 1000, 5000), ""), DefaultTuning, "hold idle capture"},

		// Hook claims.
		{"hook claim outranks the screen", pane(stamped("working", "hook", 1000, 5000), idleScreen), DefaultTuning, "hold working hook refresh"},
		{"newer blocker chrome beats a hook claim (T0/T1)", pane(stamped("working", "hook", 1000, 5000), blockedScreen), DefaultTuning, "publish blocked/permission capture +attn +reset override"},
		{"a hook claim newer than the capture wins", func() *record.Pane {
			p := pane(stamped("working", "hook", 0, 5000), blockedScreen)
			p.Capture.AtMS = now - 500
			return p
		}(), DefaultTuning, "hold working hook refresh"},
		{"silence never expires a claim", pane(stamped("blocked", "hook", 3_600_000, 3_600_000), blankScreen), DefaultTuning, "hold blocked hook refresh"},
		{"a blocked claim with its dialog gone waits one cycle", pane(stamped("blocked", "hook", 200_000, 200_000), workingScreen), DefaultTuning, "hold blocked hook refresh unblock=0s"},
		{"…and is released on the next (Esc fires no event)", pane(stamped("blocked", "hook", 5000, 5000).with("@tma_unblock_seen", ms(now-1000)), idleScreen), DefaultTuning, "publish idle capture +reset override"},
		// …but its sighting starts the confirmation, and stamped_at stays,
		// so the next cycle reads the screen again rather than call it quiet.
		{"a dialog drawn just after its hook is not a release", pane(stamped("blocked", "hook", 400, 400), idleScreen), DefaultTuning, "hold blocked hook unblock=0s"},
		{"…and the first capture past the grace releases (Esc fires no event)", pane(stamped("blocked", "hook", 2400, 2400).with("@tma_unblock_seen", ms(now-2000)), idleScreen), DefaultTuning, "publish idle capture +reset override"},
		{"…unless the dialog has been drawn since", pane(stamped("blocked", "hook", 2400, 2400).with("@tma_unblock_seen", ms(now-2000)), blockedScreen), DefaultTuning, "hold blocked hook refresh"},
		{"a dialog still on screen inside the grace is read as ever", pane(stamped("blocked", "hook", 400, 400), blockedScreen), DefaultTuning, "hold blocked hook refresh"},
		{"blocker chrome again drops the release anchor", pane(stamped("blocked", "hook", 5000, 5000).with("@agent_detail", "permission").with("@tma_unblock_seen", ms(now-1000)), blockedScreen), DefaultTuning, "hold blocked/permission hook refresh"},
		{"no rule on screen is no release", pane(stamped("blocked", "hook", 5000, 5000), blankScreen), DefaultTuning, "hold blocked hook refresh"},
		{"an old blocked claim yields to visible contrary chrome", pane(stamped("blocked", "hook", 301_000, 301_000), workingScreen), DefaultTuning, "publish working capture +reset override"},
		{"an old idle claim does not expire: idle is not visible", pane(stamped("idle", "hook", 600_000, 600_000), workingScreen), DefaultTuning, "hold idle hook refresh"},
		{"an old working claim expires to blocked chrome", pane(stamped("working", "hook", 61_000, 61_000), blockedScreen), DefaultTuning, "publish blocked/permission capture +attn +reset override"},
		{"an old working claim yields to idle chrome only if working is visible", pane(stamped("working", "hook", 61_000, 61_000), idleScreen), DefaultTuning, "publish idle capture +attn +reset override"},

		// A backward clock step: a claim dated in the future is settled (it
		// was listed before the capture was read), so it ages no more than
		// past the release grace.
		{"a claim dated in the future yields to blocker chrome", pane(stamped("working", "hook", -60_000, -60_000), blockedScreen), DefaultTuning, "publish blocked/permission capture +attn +reset override"},
		{"a blocked claim dated in the future starts its release", pane(stamped("blocked", "hook", -60_000, -60_000), workingScreen), DefaultTuning, "hold blocked hook refresh unblock=0s"},
		{"…and is released on the next cycle", pane(stamped("blocked", "hook", -60_000, -60_000).with("@tma_unblock_seen", ms(now-1000)), workingScreen), DefaultTuning, "publish working capture +reset override"},
		{"a claim dated in the future does not expire by age", pane(stamped("working", "hook", -600_000, -600_000), idleScreen), DefaultTuning, "hold working hook refresh"},
		{"a claim inside the skew is a rival's write in flight", pane(stamped("working", "hook", -5000, -5000), blockedScreen), DefaultTuning, "hold working hook refresh"},

		// Registrations.
		{"a pid-less registration in a bare shell starts its clock", func() *record.Pane {
			p := pane(stamped("idle", "hook", 1000, 5000), "")
			p.Identity, p.AgentPID, p.ShellOnly, p.ForegroundIsAgent = "hook", 0, true, false
			return p
		}(), DefaultTuning, "hold idle hook dead=0s"},
		{"…and is reaped after 30s", func() *record.Pane {
			p := pane(stamped("idle", "hook", 1000, 5000).with("@tma_reg_dead_since", ms(now-30_000)), "")
			p.Identity, p.AgentPID, p.ShellOnly, p.ForegroundIsAgent = "hook", 0, true, false
			return p
		}(), DefaultTuning, "clear"},
		{"a container client in the tree keeps it", func() *record.Pane {
			p := pane(stamped("working", "hook", 1000, 5000).with("@tma_reg_dead_since", ms(now-30_000)), "")
			p.Identity, p.AgentPID, p.ShellOnly, p.ForegroundIsAgent, p.AgentAlive = "hook", 0, false, false, false
			return p
		}(), DefaultTuning, "publish unknown process +reset"},

		// since and attention.
		{"clock step rewrites since", pane(stamped("idle", "capture", 1000, 5000).with("@agent_since", ms(now+10_000)), workingScreen), DefaultTuning, "publish working capture +reset"},
		{"input after the mark clears attention", func() *record.Pane {
			p := pane(stamped("idle", "capture", 1000, 5000).with("@agent_attention", "1"), idleScreen)
			p.ViewerActivity = now/1000 + 1
			return p
		}(), DefaultTuning, "hold idle capture -attn refresh"},
		{"the keystroke of a bound jump --next is not input at its arrival", func() *record.Pane {
			p := pane(stamped("idle", "capture", 1000, 5000).with("@agent_attention", "1").with("@tma_next_at", ms(now-200)), idleScreen)
			p.ViewerActivity = (now - 200) / 1000
			return p
		}(), DefaultTuning, "hold idle capture refresh"},
		{"…but input in a later second clears", func() *record.Pane {
			p := pane(stamped("idle", "capture", 1000, 5000).with("@agent_attention", "1").with("@tma_next_at", ms(now-2000)), idleScreen)
			p.ViewerActivity = now / 1000
			return p
		}(), DefaultTuning, "hold idle capture -attn refresh"},
		{"a --next arrival before the mark was raised does not hide later input", func() *record.Pane {
			p := pane(stamped("idle", "capture", 1000, 5000).with("@agent_attention", "1").with("@tma_next_at", ms(now-60_000)), idleScreen)
			p.ViewerActivity = now/1000 + 1
			return p
		}(), DefaultTuning, "hold idle capture -attn refresh"},
		{"input before the mark clears nothing", func() *record.Pane {
			p := pane(stamped("idle", "capture", 1000, 5000).with("@agent_attention", "1"), idleScreen)
			p.ViewerActivity = (now - 60_000) / 1000
			return p
		}(), DefaultTuning, "hold idle capture refresh"},

		// A failed process walk: nothing is judged, nothing written.
		{"a failed walk keeps the stored tuple, its mark and its anchors", func() *record.Pane {
			p := pane(stamped("working", "capture", 1000, 5000).with("@agent_attention", "1").with("@tma_idle_since", ms(now-2000)), "")
			p.Procs, p.ForegroundIsAgent, p.AgentAlive, p.ViewerActivity = -1, false, false, now/1000+1
			return p
		}(), DefaultTuning, "hold working capture idle=2s"},
		{"a failed walk keeps a hook claim whose pid it could not see", func() *record.Pane {
			p := pane(stamped("blocked", "hook", 1000, 5000), blockedScreen)
			p.Procs, p.Identity, p.AgentAlive, p.ForegroundIsAgent, p.Command = -1, "hook", false, false, "sleep"
			return p
		}(), DefaultTuning, "hold blocked hook"},
		{"a failed walk publishes nothing where nothing is stored", func() *record.Pane {
			p := pane(prior{}, "")
			p.Procs = -1
			return p
		}(), DefaultTuning, "none"},

		// Out of scope.
		{"ignored", func() *record.Pane { p := pane(prior{}, ""); p.Class = record.ClassIgnored; return p }(), DefaultTuning, "none"},
		{"agent gone clears", func() *record.Pane {
			p := pane(stamped("idle", "capture", 1000, 5000), "")
			p.Agent = ""
			return p
		}(), DefaultTuning, "clear"},
		{"not an agent, never stamped", func() *record.Pane { p := pane(prior{}, ""); p.Agent = ""; return p }(), DefaultTuning, "none"},
		{"unregistered remote shell holds stamps", func() *record.Pane {
			p := pane(stamped("working", "capture", 1000, 5000), "")
			p.Agent, p.Class = "", record.ClassRemote
			return p
		}(), DefaultTuning, "none"},
		{"registered behind a remote shell holds", func() *record.Pane {
			p := pane(stamped("working", "hook", 1000, 5000), "")
			p.Class, p.Identity, p.ForegroundIsAgent = record.ClassRemote, "hook", false
			return p
		}(), DefaultTuning, "hold working hook"},
		{"foreign state drops the pane out, untouched", pane(stamped("done", "", 1000, 5000), idleScreen), DefaultTuning, "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Fold(c.p, agent(t), c.tune, true)
			if got := describe(v); got != c.want {
				t.Errorf("got  %q\nwant %q\ntrace: %s", got, c.want, strings.Join(v.Trace, " | "))
			}
			if v.Action == record.ActPublish || v.Action == record.ActHold {
				if v.Winning.Label == "" {
					t.Errorf("no winning evidence label")
				}
			}
		})
	}
}

func describe(v *record.Verdict) string {
	if v.Action == record.ActNone || v.Action == record.ActClear {
		return v.Action
	}
	s := v.Action + " " + v.State
	if v.Detail != "" {
		s += "/" + v.Detail
	}
	s += " " + v.Source
	if v.SetAttention {
		s += " +attn"
	}
	if v.ClearAttn {
		s += " -attn"
	}
	if v.EpisodeReset {
		s += " +reset"
	}
	if v.MayOverride {
		s += " override"
	}
	if v.Refresh {
		s += " refresh"
	}
	if a := v.Anchors["@tma_idle_since"]; a > 0 {
		s += " idle=" + strconv.FormatInt((now-a)/1000, 10) + "s"
	}
	if a := v.Anchors["@tma_unblock_seen"]; a > 0 {
		s += " unblock=" + strconv.FormatInt((now-a)/1000, 10) + "s"
	}
	if a := v.Anchors["@tma_reg_dead_since"]; a > 0 {
		s += " dead=" + strconv.FormatInt((now-a)/1000, 10) + "s"
	}
	return s
}

func TestSinceIsWriteOncePerRun(t *testing.T) {
	p := pane(stamped("working", "capture", 1000, 90_000).with("@agent_detail", "x"), workingScreen)
	v := Fold(p, agent(t), DefaultTuning, false)
	if v.Action != record.ActPublish || v.EpisodeReset || v.Since != now-90_000 {
		t.Fatalf("detail change in the same state moved since: %+v", v)
	}
}

func TestGuards(t *testing.T) {
	a := agent(t)
	// A capture publish is guarded on the evidence the fold read.
	v := Fold(pane(stamped("idle", "capture", 1000, 5000), workingScreen), a, DefaultTuning, false)
	if v.GuardAt != now-1000 {
		t.Errorf("guard = %d, want the prior evidence %d", v.GuardAt, now-1000)
	}
	// Overriding a hook claim with newer blocker chrome holds only while the
	// stored evidence predates the capture.
	v = Fold(pane(stamped("working", "hook", 1000, 5000), blockedScreen), a, DefaultTuning, false)
	if v.GuardAt != now-1 {
		t.Errorf("override guard = %d, want capture-1 %d", v.GuardAt, now-1)
	}
}

func TestExplainNamesEveryRule(t *testing.T) {
	v := Fold(pane(prior{}, blockedScreen), agent(t), DefaultTuning, true)
	if len(v.Rules) != 4 {
		t.Fatalf("rules traced = %d, want 4", len(v.Rules))
	}
	if !v.Rules[0].Matched || v.Rules[1].Matched {
		t.Fatalf("match flags wrong: %+v", v.Rules)
	}
	if !strings.Contains(v.Winning.Label, "blocked/permission") {
		t.Fatalf("winning label %q", v.Winning.Label)
	}
}

func TestBlockedNotVisibleHolds(t *testing.T) {
	// pi's manifest cannot see blocked: absence of blocker chrome says nothing.
	a, err := manifest.Parse("pi", "test", []byte(strings.Replace(testManifest, `visible = ["working", "blocked"]`, `visible = ["working"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	v := Fold(pane(stamped("blocked", "hook", 400_000, 400_000).with("@tma_unblock_seen", ms(now-5000)), workingScreen), a, DefaultTuning, false)
	if describe(v) != "hold blocked hook refresh" {
		t.Fatalf("got %q", describe(v))
	}
}

func TestHistoryViewFlag(t *testing.T) {
	v := Fold(pane(stamped("working", "capture", 1000, 5000), historyScreen), agent(t), DefaultTuning, false)
	if !v.HistoryView || v.Action != record.ActHold {
		t.Fatalf("history view: %+v", v)
	}
	if v := Fold(pane(stamped("working", "capture", 1000, 5000), workingScreen), agent(t), DefaultTuning, false); v.HistoryView {
		t.Fatal("history_view set without a skip_state_update match")
	}
}

func TestWorkingClaimReleasedByIdleChrome(t *testing.T) {
	// Claude sees idle on screen (its prompt box is alone when it stops); an
	// interrupt with Esc fires no hook, so the screen releases the claim.
	a, err := manifest.Parse("agent", "test", []byte(strings.Replace(testManifest, `visible = ["working", "blocked"]`, `visible = ["working", "idle", "blocked"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		p    *record.Pane
		want string
	}{
		{"first sight waits a cycle", pane(stamped("working", "hook", 5000, 5000), idleScreen), "hold working hook refresh unblock=0s"},
		{"confirmed: released", pane(stamped("working", "hook", 5000, 5000).with("@tma_unblock_seen", ms(now-1000)), idleScreen), "publish idle capture +attn +reset override"},
		{"a fresh claim is not released (its screen may not be drawn yet), nor its screen called read", pane(stamped("working", "hook", 300, 300), idleScreen), "hold working hook unblock=0s"},
		{"working chrome keeps the claim", pane(stamped("working", "hook", 5000, 5000).with("@tma_unblock_seen", ms(now-1000)), workingScreen), "hold working hook refresh"},
	}
	for _, c := range cases {
		if got := describe(Fold(c.p, a, DefaultTuning, false)); got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
	// Where idle is not visible (Codex draws its composer while it streams),
	// idle chrome never releases a working claim.
	if got := describe(Fold(pane(stamped("working", "hook", 5000, 5000).with("@tma_unblock_seen", ms(now-1000)), idleScreen), agent(t), DefaultTuning, false)); got != "hold working hook refresh" {
		t.Errorf("idle not visible: %q", got)
	}
}

// TestExplainNamesTheMode: with explain, the fold's trace names the mode the screen's
// [[modes]] entry reads; without one matching, no mode step.
func TestExplainNamesTheMode(t *testing.T) {
	a, err := manifest.Parse("agent", "test", []byte(testManifest+`
[[modes]]
name = "auto"
region = "tail_lines(2)"
match = { line_regex = '^>> auto mode on' }
`))
	if err != nil {
		t.Fatal(err)
	}
	v := Fold(pane(nil, "all done\n$ \n>> auto mode on\n"), a, DefaultTuning, true)
	if !strings.Contains(strings.Join(v.Trace, "\n"), "mode auto: the screen names it («>> auto mode on»)") {
		t.Errorf("trace: %q", v.Trace)
	}
	v = Fold(pane(nil, ">> auto mode on\nall done\n$ \n"), a, DefaultTuning, true)
	if strings.Contains(strings.Join(v.Trace, "\n"), "mode ") {
		t.Errorf("mode named outside its region: %q", v.Trace)
	}
}
