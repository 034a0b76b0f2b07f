package broker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/child"
	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/lane"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/screen"
	"github.com/tmaproject/tma/lib/tmux"
)

// TypedWait bounds the wait for typed text to show before the keys after it.
const TypedWait = 2 * time.Second

// shot is one target as the first cycle saw it, and where it stands.
type shot struct {
	pane    string
	t       act.Target
	row     *record.Row
	exists  bool
	verdict act.Verdict
	locked  bool
	result  *act.Result // decided before any fire (refused, vanished)
}

// Fire is `tma act <name>`: check the action and the payload before any
// tmux call, resolve the targets from one cycle, confirm, then run the
// broker sequence on each target in turn.
func (b *Broker) Fire() int {
	c := &b.Req
	a := b.Actions.Get(c.Name)
	if a == nil {
		return b.usage("unknown action %q (loaded: %s)\nhint: tma act --list shows them", c.Name, strings.Join(b.Actions.Names(), ", "))
	}
	switch {
	case act.TakesArg(a):
		if err := act.CheckOption(c.Arg); err != nil {
			return b.usage("%s answers a question's option: %v", a.Name, err)
		}
	case len(c.Arg) > 0 && a.Kind != act.KindExec:
		return b.usage("%s is a %s action: --arg is for exec actions (a %s action's input lives in its manifest)", a.Name, a.Kind, a.Kind)
	case c.Text != nil && a.Kind != act.KindText:
		return b.usage("%s is a %s action: --text is for text actions (steer, steer_now)", a.Name, a.Kind)
	case c.Text == nil && a.Kind == act.KindText:
		return b.usage("%s types a line: pass it with --text", a.Name)
	}
	if c.All {
		if why := act.FanOutRefusal(a, c.Force); why != "" {
			return b.usage("%s", why)
		}
	}
	if c.Pane == "" && !c.All && !b.Req.Selected && b.defaultPane() == "" {
		return b.usage("no target: pass --pane, selector flags, or --all (outside tmux there is no $TMUX_PANE)")
	}
	// A slotted dispatch claims its slot before anything can fire (a dry
	// run fires nothing, so it claims nothing): a receipt within its TTL is
	// replayed instead, and whatever ends this invocation without a result
	// frees the claim again.
	if b.Req.Slot != "" && !c.DryRun {
		if code, done := b.claimSlot(a); done {
			return code
		}
		defer b.releaseSlot()
	}
	batch := ""
	if c.All {
		batch = nonce()
	}
	// The payload rules run before any tmux command.
	if c.Text != nil {
		if reason := act.CheckText(*c.Text, a.Sigils); reason != "" {
			pane := c.Pane
			if pane == "" && !c.All && !b.Req.Selected {
				pane = b.defaultPane()
			}
			r := act.NewResult(a.Name, pane, act.OutcomeRefused, reason)
			b.audit(a, batch, pane, act.Target{}, r, 0)
			return b.report(a, []act.Result{r}, map[string]string{pane: textWhy(reason, a)})
		}
	}

	var git *gitinfo.Resolver
	if b.Req.Selector != nil && b.Req.Selector.NeedsGit() {
		git = gitinfo.New()
	}
	f, err := b.cycle("", git)
	if err != nil {
		return b.fail(err)
	}
	panes, code := b.resolve(f)
	if code >= 0 {
		return code
	}
	shots := make([]*shot, len(panes))
	now := b.Now()
	for i, p := range panes {
		s := &shot{pane: p}
		s.t, s.row, s.exists = b.target(f, p)
		switch {
		case !s.exists:
			r := act.NewResult(a.Name, p, act.OutcomeVanished, act.ReasonPaneGone)
			s.result = &r
		default:
			s.verdict = act.Gate(a, s.t, c.Force)
			s.locked = act.Held(s.t.Lock, now)
			if !s.verdict.Fireable() {
				r := act.NewResult(a.Name, p, act.OutcomeRefused, s.verdict.Reason)
				s.result = &r
			}
		}
		shots[i] = s
	}
	if c.DryRun {
		return b.dryRun(a, f, shots)
	}
	if a.Confirm && !c.Yes {
		b.confirm(a, shots)
	}
	var results []act.Result
	why := map[string]string{}
	for _, s := range shots {
		r := s.result
		if r == nil {
			res, w := b.fire(a, s, batch)
			r = &res
			if w != "" {
				why[s.pane] = w
			}
		} else {
			switch {
			case r.ReasonString() == act.ReasonUnconfirmed:
				why[s.pane] = "not confirmed: " + a.Name + " asks first (pass --yes)"
			case s.verdict.Why != "":
				why[s.pane] = s.verdict.Why
			case r.Outcome == act.OutcomeVanished:
				why[s.pane] = "no pane " + s.pane + " on " + f.Cycle.Server
			}
			b.audit(a, batch, s.pane, s.t, *r, 0)
		}
		results = append(results, *r)
	}
	if !c.JSON && !c.All && len(results) == 1 && results[0].Outcome != act.OutcomeSent && results[0].Outcome != act.OutcomeExited && results[0].Outcome != act.OutcomeReplied && results[0].Outcome != act.OutcomeSpawned {
		b.tell(f, describe(results[0], why[results[0].Pane]))
	}
	return b.report(a, results, why)
}

// resolve names the targets: --pane, else the selector (exactly one pane
// without --all; every match with --all), else $TMUX_PANE. code is the exit
// code to stop with, -1 to go on.
func (b *Broker) resolve(f *fleet.Fleet) ([]string, int) {
	c := &b.Req
	switch {
	case c.Pane != "":
		return []string{c.Pane}, -1
	case c.All || b.Req.Selected:
		var out []string
		for _, r := range f.Rows {
			if b.Req.Selector == nil || b.Req.Selector.Match(r) {
				out = append(out, r.Row.Pane)
			}
		}
		if len(out) == 0 {
			return nil, b.usage("no agent pane matches the selector on %s", f.Cycle.Server)
		}
		if !c.All && len(out) > 1 {
			sort.Strings(out)
			return nil, b.usage("the selector matches %d panes (%s): name one with --pane, narrow the selector, or pass --all", len(out), strings.Join(out, " "))
		}
		return out, -1
	}
	if p := b.defaultPane(); p != "" {
		return []string{p}, -1
	}
	return nil, b.usage("no target: pass --pane, selector flags, or --all (outside tmux there is no $TMUX_PANE)")
}

// confirm asks once, on a terminal, for every target the gate let through;
// without a terminal (and without --yes) those targets are refused.
func (b *Broker) confirm(a *act.Action, shots []*shot) {
	var open []*shot
	for _, s := range shots {
		if s.result == nil {
			open = append(open, s)
		}
	}
	if len(open) == 0 {
		return
	}
	ok := false
	// A slotted dispatch never stops to ask: it holds its slot while it
	// waits, and the caller that named the slot has decided (--yes).
	if f, isFile := b.Stdin.(*os.File); isFile && b.Req.Slot == "" && isatty.IsTerminal(f.Fd()) {
		if len(open) == 1 {
			s := open[0]
			fmt.Fprintf(b.Stderr, "tma: fire %s on %s (%s, %s)? [y/N] ", a.Name, s.pane, s.t.Agent, stateOf(s.t))
		} else {
			fmt.Fprintf(b.Stderr, "tma: fire %s on %d panes:\n", a.Name, len(open))
			for _, s := range open {
				fmt.Fprintf(b.Stderr, "  %-8s %-10s %s\n", s.pane, s.t.Agent, stateOf(s.t))
			}
			fmt.Fprint(b.Stderr, "proceed? [y/N] ")
		}
		line, _ := bufio.NewReader(b.Stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			ok = true
		}
	}
	if ok {
		return
	}
	for _, s := range open {
		r := act.NewResult(a.Name, s.pane, act.OutcomeRefused, act.ReasonUnconfirmed)
		s.result = &r
	}
}

func stateOf(t act.Target) string {
	if t.Detail != "" {
		return t.State + "/" + t.Detail
	}
	return t.State
}

// fire is the broker sequence on one pane the first read let through: take
// the lock, re-read the pane under it, re-gate (and check --expect-*),
// dispatch, record the repeat run and release the lock. why explains a
// refusal or failure.
func (b *Broker) fire(a *act.Action, s *shot, batch string) (act.Result, string) {
	ctx := context.Background()
	pane := s.pane
	srv := b.server(nil)
	now := b.Now()
	exp := now + act.LockSlackMS
	if a.Kind == act.KindExec {
		exp = now + a.Deadline() + act.LockSlackMS
	}
	lk := act.Lock{ExpiryMS: exp, Nonce: nonce(), PID: os.Getpid(), Name: a.Name}
	take, err := tmux.Write{Pane: pane, Guard: act.TakeGuard(now), Sets: []tmux.Set{{Name: act.LockOption, Value: lk.String()}}}.Line()
	if err != nil {
		return b.finish(a, batch, s.t, act.NewResult(a.Name, pane, act.OutcomeError, "")), err.Error()
	}
	out, errs, err := srv.Batch(ctx, []string{take, "display -p -t " + pane + " '#{" + act.LockOption + "}'"})
	switch {
	case err != nil:
		return b.finish(a, batch, s.t, act.NewResult(a.Name, pane, act.OutcomeError, "")), b.DescribeTmuxError(srv, err)
	case PaneGone(errs):
		return b.finish(a, batch, s.t, act.NewResult(a.Name, pane, act.OutcomeVanished, act.ReasonPaneGone)), "pane " + pane + " is gone"
	case strings.TrimSpace(out) != lk.String():
		held := strings.TrimSpace(out)
		why := "another action holds " + pane
		if l, ok := act.ParseLock(held); ok {
			why = fmt.Sprintf("%s holds %s (pid %d, for %d ms more)", l.Name, pane, l.PID, max(l.ExpiryMS-b.Now(), 0))
		}
		return b.finish(a, batch, s.t, act.NewResult(a.Name, pane, act.OutcomeRefused, act.ReasonLocked)), why
	}

	// Under the lock: one fresh read, the gate again, the binders.
	release := func(extra ...string) {
		rel, err := tmux.Write{Pane: pane, Guard: act.ReleaseGuard(lk), Sets: []tmux.Set{{Name: act.LockOption, Unset: true}}}.Line()
		if err == nil {
			_, _ = srv.Exec(ctx, append(extra, rel))
		}
	}
	f, err := b.cycle(pane, nil)
	if err != nil {
		release()
		return b.finish(a, batch, s.t, act.NewResult(a.Name, pane, act.OutcomeError, "")), err.Error()
	}
	srv = b.server(f)
	t, _, exists := b.target(f, pane)
	if !exists {
		return b.finish(a, batch, s.t, act.NewResult(a.Name, pane, act.OutcomeVanished, act.ReasonPaneGone)), "pane " + pane + " is gone"
	}
	if v := act.Gate(a, t, b.Req.Force); !v.Fireable() {
		release()
		return b.finish(a, batch, t, act.NewResult(a.Name, pane, act.OutcomeRefused, v.Reason)), v.Why + " (read under the lock)"
	}
	reqID := ""
	if p := f.Pane(pane); p != nil {
		reqID = p.Opts[lane.Option]
	}
	if v := act.Bind(b.Req.ExpectEpisodeMS, b.Req.ExpectRequest, t, reqID); !v.Fireable() {
		release()
		return b.finish(a, batch, t, act.NewResult(a.Name, pane, act.OutcomeRefused, v.Reason)), v.Why
	}

	var r act.Result
	why := ""
	var extra []string
	var sup *child.Spawned // a detached action's supervisor, which takes the lock over
	b.viaAPI = false
	// Every key goes out under the tuple this read saw, checked by tmux in
	// the command that sends it: a prompt that replaced this one since
	// takes nothing.
	g := guard{pane: pane, cond: act.SendGuard(act.Tuple{State: t.State, Detail: t.Detail, Since: t.Since, Request: reqID}, lk),
		marker: "tma-sent-" + lk.Nonce}
	// A dialog that drops keys for a while after it opens ([input]
	// settle_ms) gets them once it takes them; the guard still checks the
	// run it was read in, so a prompt that replaced it meanwhile takes none.
	if a.Kind == act.KindKeys || a.Kind == act.KindText {
		if w := act.SettleWait(t, b.Now()); w > 0 {
			time.Sleep(time.Duration(w) * time.Millisecond)
		}
	}
	switch a.Kind {
	case act.KindKeys:
		// OpenCode's own server, when the pane names one and the request
		// it waits on: the answer goes there, and no key is pressed.
		if ans, _, ok, _ := b.apiTarget(a, f, pane, t.Agent); ok {
			b.viaAPI = true
			r, why, extra = b.answer(a, pane, ans, a.API[t.Agent])
			break
		}
		replied := false
		if arm, ok := a.Hook[t.Agent]; ok && reqID != "" {
			replied = b.reply(pane, reqID, arm)
		}
		if replied {
			r = act.NewResult(a.Name, pane, act.OutcomeReplied, "")
			// tma's own reply landed: the request is answered.
			if l, err := (tmux.Write{Pane: pane, Guard: "#{==:#{" + lane.Option + "}," + reqID + "}",
				Sets: []tmux.Set{{Name: lane.Option, Unset: true}}}).Line(); err == nil {
				extra = append(extra, l)
			}
			break
		}
		seq := a.Keys[t.Agent]
		if act.TakesArg(a) {
			seq = act.ExpandArg(seq, b.Req.Arg[0])
		}
		r, why = b.sendKeys(srv, a, g, seq)
	case act.KindText:
		r, why = b.sendText(srv, a, g, *b.Req.Text, a.Text[t.Agent].Suffix)
	case act.KindExec:
		if a.Detach {
			r, why, sup = b.spawn(a, f, pane, t, batch)
			break
		}
		r, why = b.exec(a, f, pane, t)
	}
	// The repeat run rides the release: same action, same episode.
	repeat := 0
	if act.Rank(r) == 0 {
		v, n := act.NextRepeat(f.Pane(pane).Opts[act.RepeatOption], t.EpisodeMS, a.Name)
		if l, err := (tmux.Write{Pane: pane, Sets: []tmux.Set{{Name: act.RepeatOption, Value: v}}}).Line(); err == nil {
			extra = append(extra, l)
		}
		if n >= act.RepeatWarn {
			repeat = n
			fmt.Fprintf(b.Stderr, "tma: %d consecutive %s on %s in this episode; the agent may be re-asking\n", n, a.Name, pane)
		}
	}
	if sup != nil {
		b.handOver(srv, pane, lk, sup, extra)
	} else {
		release(extra...)
	}
	b.audit(a, batch, pane, t, r, repeat)
	b.viaAPI = false
	return r, why
}

// finish audits a result decided inside fire before any dispatch.
func (b *Broker) finish(a *act.Action, batch string, t act.Target, r act.Result) act.Result {
	b.audit(a, batch, r.Pane, t, r, 0)
	return r
}

// PaneGone reports a tmux error that names a pane which is gone.
func PaneGone(stderr string) bool {
	return strings.Contains(stderr, "can't find pane") || strings.Contains(stderr, "no such pane")
}

// guard is where a fire's keys go and the condition they go out under
// (act.SendGuard); marker is what the guarded command prints once its keys
// are sent.
type guard struct {
	pane, cond, marker string
}

// sendKeys delivers a key sequence: runs of key names in one send-keys each
// (one call for approve, deny, interrupt), a literal text item typed with
// -l and the keys after it only once it shows. Every send is guarded.
func (b *Broker) sendKeys(srv *tmux.Client, a *act.Action, g guard, seq []string) (act.Result, string) {
	typed := false
	for _, st := range act.Steps(seq) {
		var why string
		var ok bool
		if st.Literal != "" {
			ok, why = b.typeText(srv, g, st.Literal)
		} else {
			ok, why = b.keys(srv, g, st.Keys)
		}
		if !ok {
			if typed {
				why += "; what came before it was typed"
			}
			return b.deliveryFailure(a, g.pane, why)
		}
		typed = true
	}
	return act.NewResult(a.Name, g.pane, act.OutcomeSent, ""), ""
}

// sendText types the payload exactly as given, waits until it shows, then
// presses the suffix keys in one send-keys; each under the guard.
func (b *Broker) sendText(srv *tmux.Client, a *act.Action, g guard, text string, suffix []string) (act.Result, string) {
	if ok, why := b.typeText(srv, g, text); !ok {
		return b.deliveryFailure(a, g.pane, why)
	}
	if len(suffix) > 0 {
		if ok, why := b.keys(srv, g, suffix); !ok {
			return b.deliveryFailure(a, g.pane, why+"; the text was typed, its "+strings.Join(suffix, " ")+" not pressed")
		}
	}
	return act.NewResult(a.Name, g.pane, act.OutcomeSent, ""), ""
}

func (b *Broker) deliveryFailure(a *act.Action, pane, why string) (act.Result, string) {
	switch {
	case strings.HasPrefix(why, "gone:"):
		return act.NewResult(a.Name, pane, act.OutcomeVanished, act.ReasonPaneGone), "pane " + pane + " is gone"
	case strings.HasPrefix(why, "moved:"):
		return act.NewResult(a.Name, pane, act.OutcomeRefused, act.ReasonGated), strings.TrimPrefix(why, "moved: ")
	}
	return act.NewResult(a.Name, pane, act.OutcomeError, ""), why
}

// keys sends key names in one send-keys call; `--` keeps a key from a
// user's manifest from ever reading as a flag.
func (b *Broker) keys(srv *tmux.Client, g guard, keys []string) (bool, string) {
	words := []string{"send-keys", "-t", g.pane, "--"}
	for _, k := range keys {
		words = append(words, tmux.Quote(k))
	}
	return b.send(srv, g, strings.Join(words, " "))
}

// typeText types text literally and waits (bounded by TypedWait) until it
// shows once more on the screen than before: an Enter that lands right
// behind typed characters is dropped by some agents (docs/actions.md).
func (b *Broker) typeText(srv *tmux.Client, g guard, text string) (bool, string) {
	pane := g.pane
	probe := act.Probe(text)
	count := func() (int, bool) {
		shots, err := srv.Capture(context.Background(), []string{pane})
		if err != nil {
			return 0, false
		}
		raw, ok := shots[pane]
		if !ok {
			return 0, false
		}
		return strings.Count(act.Squash(screen.StripANSI(raw)), probe), true
	}
	before, _ := count()
	if ok, why := b.send(srv, g, "send-keys -t "+pane+" -l -- "+tmux.Quote(text)); !ok {
		return false, why
	}
	deadline := time.Now().Add(TypedWait)
	for time.Now().Before(deadline) {
		if n, ok := count(); ok && n > before {
			return true, ""
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.note("note: the typed text did not show on %s within %s; pressing the keys after it anyway", pane, TypedWait)
	return true, ""
}

// send runs one send-keys line under the guard, in one tmux command: tmux
// checks the pane's tuple and sends in the same step, then says whether it
// sent and what the pane holds. A failure names itself ("gone:" when the
// pane went away, "moved:" when the guard did not hold).
func (b *Broker) send(srv *tmux.Client, g guard, line string) (bool, string) {
	guarded := "if-shell -F -t " + g.pane + " " + tmux.Quote(g.cond) + " " +
		tmux.Quote(line+" ; display -p -t "+g.pane+" "+tmux.Quote(g.marker))
	out, errs, err := srv.Batch(context.Background(), []string{guarded, "display -p -t " + g.pane + " " + tmux.Quote(act.SendGuardRead)})
	if err != nil {
		return false, b.DescribeTmuxError(srv, err)
	}
	if errs = strings.TrimSpace(errs); errs != "" {
		if PaneGone(errs) {
			return false, "gone: " + errs
		}
		return false, "tmux: " + errs
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 0 && lines[0] == g.marker {
		return true, ""
	}
	return false, "moved: " + g.pane + " moved on before the keys went out: it is " + act.MovedOn(lines[len(lines)-1]) + " now (checked where the keys are sent)"
}

// run runs one command line; a failure names itself ("gone:" when the pane
// went away).
func (b *Broker) run(srv *tmux.Client, line string) (bool, string) {
	_, errs, err := srv.Batch(context.Background(), []string{line})
	if err != nil {
		return false, b.DescribeTmuxError(srv, err)
	}
	if errs = strings.TrimSpace(errs); errs != "" {
		if PaneGone(errs) {
			return false, "gone: " + errs
		}
		return false, "tmux: " + errs
	}
	return true, ""
}

// exec runs the command with the pane's context in the environment.
func (b *Broker) exec(a *act.Action, f *fleet.Fleet, pane string, t act.Target) (act.Result, string) {
	env := b.childEnv(a, f, pane, t)
	stdout := b.Stdout
	if b.Req.JSON {
		stdout = b.Stderr // stdout carries the result document
	}
	o, err := child.Run(a.Command, env, stdout, b.Stderr, time.Duration(a.TimeoutMS)*time.Millisecond)
	switch {
	case err != nil:
		return act.NewResult(a.Name, pane, act.OutcomeError, ""), "cannot run sh: " + err.Error()
	case o.TimedOut:
		return act.NewResult(a.Name, pane, act.OutcomeTimeout, ""), fmt.Sprintf("killed at timeout_ms (%d ms)", a.TimeoutMS)
	}
	return act.Exited(a.Name, pane, o.Code), ""
}

// contextVars are the TMA_* variables an exec action reads, in dry-run order.
var contextVars = []string{"TMA_ACTION", "TMA_PANE", "TMA_AGENT", "TMA_STATE", "TMA_DETAIL", "TMA_SESSION_ID", "TMA_CWD", "TMA_PID", "TMA_LOCATOR", "TMA_TITLE"}

// context is the pane's context as TMA_* values: a value with nothing to
// report is absent.
func (b *Broker) context(a *act.Action, f *fleet.Fleet, pane string, t act.Target) map[string]string {
	m := map[string]string{"TMA_ACTION": a.Name, "TMA_PANE": pane, "TMA_AGENT": t.Agent, "TMA_STATE": t.State,
		"TMA_DETAIL": t.Detail, "TMA_SESSION_ID": t.Session, "TMA_CWD": t.CWD, "TMA_TITLE": t.Title}
	if t.PID > 0 {
		m["TMA_PID"] = strconv.Itoa(t.PID)
	}
	if p := f.Pane(pane); p != nil {
		m["TMA_LOCATOR"] = p.Locator()
	}
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}

// childEnv is tma's environment without any inherited context or argument
// variables, plus this pane's context and the --arg values.
func (b *Broker) childEnv(a *act.Action, f *fleet.Fleet, pane string, t act.Target) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if isContextVar(k) || k == "TMA_SOCKET_PATH" {
			continue
		}
		env = append(env, kv)
	}
	ctx := b.context(a, f, pane, t)
	for _, k := range contextVars {
		if v, ok := ctx[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	if f.Cycle.Server != "" {
		env = append(env, "TMA_SOCKET_PATH="+f.Cycle.Server) // a tma the command runs lands here
	}
	if args := b.Req.Arg; len(args) > 0 {
		env = append(env, "TMA_ARG="+args[0])
		if len(args) > 1 {
			for i, v := range args {
				env = append(env, fmt.Sprintf("TMA_ARG_%d=%s", i+1, v))
			}
			env = append(env, "TMA_ARG_COUNT="+strconv.Itoa(len(args)))
		}
	}
	return env
}

func isContextVar(k string) bool {
	for _, c := range contextVars {
		if k == c {
			return true
		}
	}
	return k == "TMA_ARG" || k == "TMA_ARG_COUNT" || strings.HasPrefix(k, "TMA_ARG_")
}

// audit appends the [act] log line for one fire attempt.
func (b *Broker) audit(a *act.Action, batch, pane string, t act.Target, r act.Result, repeat int) {
	path := b.Config.ActLog(b.Getenv("HOME"))
	if path == "" {
		return
	}
	kind := a.Kind
	switch {
	case b.viaAPI:
		kind = act.KindAPI
	case r.Outcome == act.OutcomeReplied:
		kind = act.KindHook
	}
	l := act.AuditLine{Schema: 1, At: b.Now(), Source: b.Req.Source, Action: a.Name, Kind: kind, Pane: pane,
		Outcome: r.Outcome, Reason: r.Reason, ExitCode: r.ExitCode}
	if batch != "" {
		l.Batch = &batch
	}
	if d := b.Req.Device; d != "" {
		l.Device = &d
	}
	if t.Agent != "" {
		l.Agent = &t.Agent
	}
	if t.EpisodeMS > 0 {
		ep := t.EpisodeMS
		l.EpisodeMS = &ep
	}
	if repeat > 0 {
		l.Repeat = &repeat
	}
	if t.PendingTool != "" {
		l.PendingTool = &t.PendingTool
	}
	if t.PendingCall != "" {
		l.PendingCall = &t.PendingCall
	}
	act.AppendAudit(path, l)
}

// report prints the results: the JSON document, or a line per refusal or
// failure on stderr (and with --all a line per target on stdout). It
// returns the exit code (the worst target's under --all).
func (b *Broker) report(a *act.Action, results []act.Result, why map[string]string) int {
	if b.Req.Slot != "" {
		live := false
		for i := range results {
			results[i].Cached = &live
		}
		// What the receipt records is what this dispatch reports: an error
		// is fired-unknown in both, so a replay reads as the original; one
		// that provably sent nothing keeps its reason and frees the slot.
		if results[0].Outcome == act.OutcomeError && !results[0].Unsent {
			r := ledger.ReasonFiredUnknown
			results[0].Reason = &r
		}
		b.settleSlot(results[0])
	}
	if b.Req.JSON {
		var doc any = results[0]
		if b.Req.All {
			doc = act.Envelope{Schema: 1, Results: results}
		}
		if out, err := act.Marshal(doc); err == nil {
			fmt.Fprintln(b.Stdout, string(out))
		}
	} else if b.Req.All {
		for _, r := range results {
			fmt.Fprintf(b.Stdout, "%-8s %s\n", r.Pane, outcomeText(r))
		}
	}
	for _, r := range results {
		if act.Rank(r) == 0 {
			continue
		}
		fmt.Fprintf(b.Stderr, "tma: %s on %s: %s\n", a.Name, paneName(r.Pane), describe(r, why[r.Pane]))
	}
	return act.Worst(results)
}

func paneName(p string) string {
	if p == "" {
		return "(no pane)"
	}
	return p
}

func outcomeText(r act.Result) string {
	switch r.Outcome {
	case act.OutcomeRefused:
		return "refused: " + r.ReasonString()
	case act.OutcomeVanished:
		return "vanished: " + r.ReasonString()
	case act.OutcomeExited:
		return fmt.Sprintf("exited %d", r.ExitCode)
	}
	return r.Outcome
}

func describe(r act.Result, why string) string {
	s := outcomeText(r)
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}

func textWhy(reason string, a *act.Action) string {
	switch reason {
	case act.ReasonEmpty:
		return "the --text payload is empty"
	case act.ReasonTooLong:
		return fmt.Sprintf("the --text payload is over %d bytes", act.MaxText)
	case act.ReasonControlBytes:
		return "the --text payload carries a control character (a steer is one line)"
	case act.ReasonSigil:
		return "the --text payload begins with a sigil (" + strings.Join(a.Sigils, " ") + "): a message cannot reach a command"
	}
	return ""
}
