package scan

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/proc"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// RemoteShells take a pane out of scope: nothing readable crosses them.
var RemoteShells = map[string]bool{"ssh": true, "mosh": true, "mosh-client": true, "docker": true, "podman": true, "kubectl": true}

// Multiplexers are nested clients: their agents live on another server.
var Multiplexers = map[string]bool{"tmux": true, "zellij": true, "screen": true, "dvtm": true, "abduco": true}

// Options configure a scan.
type Options struct {
	Manifests  *manifest.Set
	Tuning     fold.Tuning
	Host       string
	Now        func() int64 // epoch ms
	Pane       string       // scan only this pane (still one list call)
	NoCapture  bool         // doctor-style read: observe, never capture
	CaptureAll bool         // explain, and the daemon's sweep: read every agent screen the fold would match
	// Edges are the panes whose output went quiet since the last cycle, each
	// with its burst's last output: their panes carry the edge and are read.
	Edges map[string]int64
	// Getenv, when set, lets the scan find the server's pid (TMUX_TMPDIR)
	// and read its panes' processes while the list runs.
	Getenv func(string) string
	// List is a list call already in flight; it is used when it is for the
	// client the cycle runs on (tmux.PendingList.For).
	List *tmux.PendingList
}

// Result is one observed cycle.
type Result struct {
	Cycle  *record.Cycle
	Panes  []*record.Pane
	Timing Timing
}

// Timing is what one cycle's observation cost, phase by phase: the
// --debug-timing diagnostic.
type Timing struct {
	List, Walk, Capture time.Duration
}

// Run observes one cycle.
func Run(ctx context.Context, c *tmux.Client, o Options) (*Result, error) {
	t0 := time.Now()
	// The whole server's trees are read while tmux answers (the panes are
	// its children), on the core the list leaves idle; panes the walk
	// missed are read after. A scoped scan reads its one tree after.
	var early chan *proc.Table
	if o.Pane == "" && o.Getenv != nil {
		if spid := c.ServerPID(o.Getenv); spid > 0 {
			early = make(chan *proc.Table, 1)
			go func() { early <- proc.WalkServer(spid, stopAt(o.Manifests)) }()
		}
	}
	var snap *tmux.Snapshot
	var err error
	if o.List.For(c) {
		snap, err = o.List.Wait(c)
	} else {
		snap, err = c.List(ctx)
	}
	if err != nil {
		return nil, err
	}
	var tm Timing
	tm.List = time.Since(t0)
	now := o.Now()
	cyc := &record.Cycle{NowMS: now, Server: snap.Server, Host: o.Host, TmuxVersion: snap.Version, Scoped: o.Pane != "", LastPollMS: snap.LastPoll, LastStatusMS: snap.LastStatus}
	viewers := map[string]int64{}
	for _, cl := range snap.Clients {
		cyc.Clients = append(cyc.Clients, record.Client{Name: cl.Name, Pane: cl.Pane, Session: cl.Session, Activity: cl.Activity, Control: cl.Control})
		// A control client's input clock is frozen at attach: it proves nothing.
		if !cl.Control && cl.Activity > viewers[cl.Pane] {
			viewers[cl.Pane] = cl.Activity
		}
	}
	t1 := time.Now()
	var procs *proc.Table
	var perr error
	if early != nil {
		procs = <-early
	}
	if procs != nil {
		procs.Extend(roots(snap.Panes, o.Pane))
	} else {
		procs, perr = proc.WalkTrees(ctx, roots(snap.Panes, o.Pane), stopAt(o.Manifests))
	}
	tm.Walk = time.Since(t1)
	res := &Result{Cycle: cyc}
	defer func() { res.Timing = tm }()
	var want []string
	for i := range snap.Panes {
		pi := &snap.Panes[i]
		cyc.Panes = append(cyc.Panes, pi.ID)
		if o.Pane != "" && pi.ID != o.Pane {
			continue
		}
		p := observe(pi, procs, o.Manifests, now)
		if perr != nil {
			p.Procs = -1
		}
		p.ViewerActivity = viewers[p.Pane]
		p.QuietEdge = o.Edges[p.Pane]
		if !o.NoCapture && (needsCapture(p, o.Tuning) || (o.CaptureAll || p.QuietEdge > 0) && capturable(p)) {
			want = append(want, p.Pane)
		}
		res.Panes = append(res.Panes, p)
	}
	if len(want) > 0 {
		t2 := time.Now()
		shots, err := c.Capture(ctx, want)
		tm.Capture = time.Since(t2)
		if err != nil {
			return nil, err
		}
		at := o.Now()
		for _, p := range res.Panes {
			if txt, ok := shots[p.Pane]; ok {
				p.Capture = &record.Capture{AtMS: at, Text: txt}
				p.CaptureSkipped = ""
			} else if contains(want, p.Pane) {
				p.CaptureSkipped = "pane-gone"
				p.Notes = append(p.Notes, "pane vanished before its capture")
			}
		}
	}
	sort.SliceStable(res.Panes, func(i, j int) bool { return paneNum(res.Panes[i].Pane) < paneNum(res.Panes[j].Pane) })
	return res, nil
}

// stopAt is where the walk may stop descending: below a process a manifest
// claims by name, which identify would take before anything under it.
func stopAt(ms *manifest.Set) proc.Stop {
	if ms == nil {
		return nil
	}
	return ms.Claims
}

// roots are the pane processes whose trees the cycle reads: every live
// pane in scope.
func roots(panes []tmux.PaneInfo, only string) []int {
	var out []int
	for i := range panes {
		if p := &panes[i]; !p.Dead && p.PID > 0 && (only == "" || p.ID == only) {
			out = append(out, p.PID)
		}
	}
	return out
}

// observe reads one pane against the cycle's process table; a nil table is
// a walk that failed.
func observe(pi *tmux.PaneInfo, procs *proc.Table, ms *manifest.Set, now int64) *record.Pane {
	p := &record.Pane{
		NowMS: now, Pane: pi.ID, Session: pi.Session, SessionID: pi.SessionID, Window: pi.Window,
		WindowID: pi.WindowID, Index: pi.Index, PanePID: pi.PID, Command: pi.Command, Title: pi.Title,
		CWD: pi.CWD, Width: pi.Width, Height: pi.Height, AlternateOn: pi.AlternateOn, InMode: pi.InMode,
		Scroll: pi.Scroll, WindowActivity: pi.WindowActivity, Active: pi.Active, Dead: pi.Dead,
		Opts: pi.Opts, WindowSummary: pi.WindowSummary, SessionSummary: pi.SessionSummary,
	}
	prior := record.ParsePrior(pi.Opts)
	registered := prior.Session != "" && prior.Name != ""
	switch {
	case pi.Opts["@agent_ignore"] != "":
		p.Class = record.ClassIgnored
		return p
	case RemoteShells[pi.Command]:
		p.Class = record.ClassRemote
	case Multiplexers[pi.Command]:
		p.Class = record.ClassNested
		return p
	}

	if procs == nil && p.Class != record.ClassRemote {
		// The walk failed (no /proc, no ps): nothing says who runs here, and
		// nothing that was seen before is disproved. The stored tuple keeps
		// its agent, so the fold holds it and the row says what the options
		// say; the screen is not read (Procs is -1: doctor names the walk).
		p.Procs = -1
		if prior.Name != "" && !ms.Disabled(prior.Name) {
			p.Agent, p.AgentPID, p.Identity = prior.Name, prior.PID, "process"
			if registered {
				p.Identity = "hook"
			}
		}
		return p
	}
	var tree []*proc.Proc
	if procs != nil && !pi.Dead {
		tree = procs.Tree(pi.PID)
	}
	p.Procs = len(tree)
	p.ShellOnly = len(tree) > 0
	for _, q := range tree {
		if !proc.Shells[q.Comm] {
			p.ShellOnly = false
		}
	}

	if p.Class != record.ClassRemote && ms != nil {
		if a, q := identify(tree, procs, ms, pi.Title); a != nil {
			p.Agent, p.Identity, p.AgentPID, p.AgentAlive = a.Name, "process", q.PID, true
			p.ForegroundIsAgent = foreground(pi, q, tree, a)
			p.Manifest = a.Digest
			return p
		}
	}
	if registered && ms.Disabled(prior.Name) {
		return p // [[agent]] enabled = false: its registrations are no agent's
	}
	if registered {
		// A hook registration outranks both carve-outs: it could only have
		// been stamped from inside.
		alive := prior.PID > 0 && procs != nil && procs.Contains(pi.PID, prior.PID)
		if prior.PID > 0 && procs != nil && !alive && p.Class != record.ClassRemote {
			return p // the registered agent exited: the pane is no agent's now
		}
		p.Agent, p.Identity, p.AgentPID, p.AgentAlive = prior.Name, "hook", prior.PID, alive
		if a := getAgent(ms, prior.Name); a != nil && p.Class != record.ClassRemote {
			p.ForegroundIsAgent = a.MatchesProcess(pi.Command)
			p.Manifest = a.Digest
		}
	}
	return p
}

func getAgent(ms *manifest.Set, name string) *manifest.Agent {
	if ms == nil {
		return nil
	}
	return ms.Get(name)
}

// identify finds the first process in the pane's tree (nearest the shell)
// that a manifest claims; where the process is a runtime (node) the
// manifest's title patterns must agree too (Agent.Identifies).
func identify(tree []*proc.Proc, procs *proc.Table, ms *manifest.Set, title string) (*manifest.Agent, *proc.Proc) {
	for _, q := range tree {
		names := procs.Names(q)
		for _, a := range ms.All() {
			for _, n := range names {
				if a.Identifies(n, title) {
					return a, q
				}
			}
		}
	}
	return nil, nil
}

// foreground reports whether the terminal's foreground process group is the
// agent's: the group the agent process belongs to, or (without a tty group
// from the walk) pane_current_command naming the agent or a launcher above it.
func foreground(pi *tmux.PaneInfo, agent *proc.Proc, tree []*proc.Proc, a *manifest.Agent) bool {
	if agent.TPGID > 0 && agent.PGID > 0 {
		return agent.PGID == agent.TPGID
	}
	if a.MatchesProcess(pi.Command) {
		return true
	}
	for _, q := range tree {
		if q.Comm == pi.Command && q.PID != pi.PID && q.PID <= agent.PID {
			return true
		}
	}
	return false
}

// needsCapture applies the skip rule: a screen unchanged since the stamp is
// not read again, except where the clock alone can change the verdict, or
// the manifest that would read it is not the one that last did.
func needsCapture(p *record.Pane, t fold.Tuning) bool {
	if !capturable(p) {
		return false
	}
	prior := record.ParsePrior(p.Opts)
	switch {
	case prior.StampedAt == 0 || prior.State == "" || prior.Name != p.Agent:
		return true
	case prior.StampedAt > p.NowMS+tmux.FutureSkewMS || prior.EvidenceAt > p.NowMS+tmux.FutureSkewMS:
		return true // dated in the future: a backward clock step, so window_activity cannot vouch for it
	case p.Manifest != "" && readUnder(p.Opts) != "" && readUnder(p.Opts) != p.Manifest:
		return true // the screen was last read under other rules (a manifest edit, an upgrade): once
	case prior.State == "working" || prior.IdleSince > 0 || prior.UnblockSeen > 0:
		return true // the dwell (and the unblock wait) resolve against chrome already on screen
	case prior.Source == "hook" && p.NowMS-prior.EvidenceAt > t.Decay(prior.State) && !confirmedAged(prior, t):
		return true // a claim this old may be expired by chrome already there
	}
	// window_activity is whole seconds: activity in the stamp's own second
	// counts as activity.
	if p.WindowActivity < prior.StampedAt/1000 {
		p.CaptureSkipped = "quiet"
		return false
	}
	return true
}

// readUnder is the digest of the manifest whose rules last read the pane's
// screen (@agent_hash; "1" from builds before digests). Absent, no screen
// read produced the stored tuple (a hook's claim, say), so no rules are
// behind it to have changed.
func readUnder(opts map[string]string) string { return opts["@agent_hash"] }

// confirmedAged: a capture read after the claim had outlived its decay
// window held it. A hook stamps its claim with stamped_at = evidence_at,
// and only a hold over a fresh capture moves stamped_at without touching
// the evidence, so stamped_at past evidence_at + decay is that capture. The
// screen it read decided everything the claim's age could: from then on
// only a change on screen can expire the claim, and window_activity says
// whether there was one.
func confirmedAged(prior record.Prior, t fold.Tuning) bool {
	return prior.StampedAt-prior.EvidenceAt > t.Decay(prior.State)
}

// capturable: the fold would match rules on this pane's screen.
func capturable(p *record.Pane) bool {
	return p.Agent != "" && p.Class == "" && p.ForegroundIsAgent && p.Scroll <= 0 && !p.Dead
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func paneNum(id string) int {
	n := 0
	for _, r := range strings.TrimPrefix(id, "%") {
		n = n*10 + int(r-'0')
	}
	return n
}
