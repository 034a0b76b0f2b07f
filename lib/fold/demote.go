package fold

import "github.com/tmaproject/tma/lib/record"

// Hook-liveness demotion: a hook-registered pane whose screen keeps showing
// what its hooks do not say is read from capture again.
//
// The evidence is the daemon's active->quiet edges (record.Pane.QuietEdge:
// a burst of output, then [daemon] quiet_ms of quiet, captured on that
// cycle). An edge is unexplained when the pane holds a hook claim, no hook
// event has landed since the first unexplained edge, and the edge's capture
// matches a rule of another state than the claim. So output the claim
// accounts for never counts: a working claim with a spinner (or with a
// screen no rule reads) is a long tool call, an idle claim with idle chrome
// is someone typing at the prompt. DemoteEdges such edges demote the pane:
// the claim no longer outranks the screen, and the verdicts come from
// capture until a hook event lands after the demotion, which promotes it
// back (the hooks are alive after all). A hook event before the threshold
// only restarts the count. Without a daemon nothing reports edges, so
// nothing is demoted; a standing demotion is kept by every producer's fold.

// demotion is a pane's liveness bookkeeping after this cycle.
type demotion struct {
	count, first, at int64 // unexplained edges since first; when demoted
}

// startDemotion reads the stored bookkeeping, dropping what a hook event
// since has made moot.
func (f *folder) startDemotion() {
	pr := f.prior
	d := demotion{count: pr.Unexplained, first: pr.UnexplainedAt, at: pr.Demoted}
	hook := pr.Source == "hook" && pr.State != ""
	if d.at > 0 && !pr.IsDemoted() {
		f.note("a hook event landed after the demotion: promoted, the hook claim outranks the screen again")
		d = demotion{}
	}
	if hook && d.at == 0 && d.first > 0 && pr.EvidenceAt > d.first {
		d.count, d.first = 0, 0 // a hook event since: the count starts over
	}
	f.dem = d
}

// demoted weighs this cycle's edge against the hook claim (screen is the
// state the capture's rules read, at its time) and reports whether the
// claim is demoted, so the screen decides.
func (f *folder) demoted(screen string, at int64) bool {
	d, pr := &f.dem, f.prior
	if d.at > 0 {
		f.note("demoted %ds ago: the hook claim %s does not outrank the screen", (at-d.at)/1000, pr.State)
		return true
	}
	if f.t.DemoteEdges <= 0 || f.p.QuietEdge == 0 || screen == "" || screen == pr.State {
		return false
	}
	if d.first == 0 {
		d.first = at
	}
	d.count++
	if d.count < int64(f.t.DemoteEdges) {
		f.note("output its hooks do not explain: %s chrome under the %s claim (%d of %d edges)", screen, pr.State, d.count, f.t.DemoteEdges)
		return false
	}
	d.at = at
	f.note("output its hooks do not explain for %d edges (%s chrome under the %s claim): demoted, the screen decides", d.count, screen, pr.State)
	return true
}

// keepDemotion carries the bookkeeping into the commit.
func (f *folder) keepDemotion() {
	if f.v.Action != record.ActHold && f.v.Action != record.ActPublish {
		return
	}
	d := f.dem
	if d.count > 0 {
		f.anchor("@tma_unexplained", d.count)
		f.anchor("@tma_unexplained_at", d.first)
	}
	if d.at > 0 {
		f.anchor("@tma_demoted", d.at)
	}
}
