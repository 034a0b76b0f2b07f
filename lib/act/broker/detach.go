package broker

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/child"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/notify"
	"github.com/tmaproject/tma/lib/tmux"
)

// Supervision is what a detach = true fire hands its supervisor on the
// command line (tma-act supervise): the supervisor runs the command, holds
// the lock until the child ends, releases it and reports the completion.
type Supervision struct {
	Action    string
	Pane      string
	Agent     string // the pane's agent when it fired
	Locator   string // the pane's locator when it fired
	TimeoutMS int64  // detach_timeout_ms
	Source    string // the surface that fired it, for the audit log
	Batch     string // the --all batch it belonged to
	Device    string // act --device
	EpisodeMS int64  // the pane's episode when it fired
	Command   string // sh -c
}

// spawn starts the supervisor of a detached action and returns at once:
// outcome spawned. The supervisor waits for the lock value on its stdin
// (what fire hands it once the lock is swapped to its pid), so the child
// never runs before the broker is done with the pane.
func (b *Broker) spawn(a *act.Action, f *fleet.Fleet, pane string, t act.Target, batch string) (act.Result, string, *child.Spawned) {
	self, err := os.Executable()
	if err != nil {
		return act.NewResult(a.Name, pane, act.OutcomeError, ""), "cannot find tma-act to supervise the action: " + err.Error(), nil
	}
	argv := []string{self}
	if f.Cycle.Server != "" {
		argv = append(argv, "-S", f.Cycle.Server) // the same server, whatever named it (D-004)
	}
	if b.ConfigArg != "" {
		argv = append(argv, "--config", b.ConfigArg)
	}
	argv = append(argv, "supervise", "--action", a.Name, "--pane", pane, "--timeout-ms", strconv.FormatInt(a.DetachTimeoutMS, 10), "--source", b.Req.Source)
	if t.Agent != "" {
		argv = append(argv, "--agent", t.Agent)
	}
	if p := f.Pane(pane); p != nil {
		argv = append(argv, "--locator", p.Locator())
	}
	if batch != "" {
		argv = append(argv, "--batch", batch)
	}
	if b.Req.Device != "" {
		argv = append(argv, "--device", b.Req.Device)
	}
	if t.EpisodeMS > 0 {
		argv = append(argv, "--episode-ms", strconv.FormatInt(t.EpisodeMS, 10))
	}
	argv = append(argv, "--", a.Command)
	sup, err := child.Detach(argv, b.childEnv(a, f, pane, t))
	if err != nil {
		return act.NewResult(a.Name, pane, act.OutcomeError, ""), "cannot start the supervisor: " + err.Error(), nil
	}
	return act.NewResult(a.Name, pane, act.OutcomeSpawned, ""), "", sup
}

// handOver moves the lock to the supervisor (its pid in the value, so
// --list and a refusal name who holds the pane), guarded on the broker's
// own value, with the lines that ride the release, then gives the
// supervisor the value it holds. A swap that cannot be written leaves the
// broker's value, and that is the one handed over.
func (b *Broker) handOver(srv *tmux.Client, pane string, lk act.Lock, sup *child.Spawned, extra []string) {
	held := lk
	held.PID = sup.PID
	swap, err := tmux.Write{Pane: pane, Guard: act.ReleaseGuard(lk), Sets: []tmux.Set{{Name: act.LockOption, Value: held.String()}}}.Line()
	if err == nil {
		if _, err = srv.Exec(context.Background(), append(extra, swap)); err != nil {
			held = lk
		}
	}
	fmt.Fprintln(sup.Stdin, held.String())
	_ = sup.Stdin.Close()
}

// HandOverWait bounds how long a supervisor waits for its lock.
const HandOverWait = 30 * time.Second

// Supervise is the supervisor's main: it always exits 0, since nobody
// reads its status; what happened goes to the completion and the logs. The
// config (configPath as --config gave it) is read once the child is done,
// with the child's context gone from the environment; tmuxFor is the
// client for the server that config names.
func Supervise(stdin io.Reader, c Supervision, lookup func(string) (string, bool), configPath string, tmuxFor func(*config.Config) *tmux.Client) int {
	lk, ok := readLock(stdin)
	if !ok {
		return 0 // the broker never handed the lock over: it did not fire
	}
	// The environment is the child's, as the broker built it.
	o, err := child.Run(c.Command, os.Environ(), io.Discard, io.Discard, time.Duration(c.TimeoutMS)*time.Millisecond)
	comp := &notify.Completion{Action: c.Action, Pane: c.Pane, Agent: c.Agent, Locator: c.Locator}
	res := act.Exited(c.Action, c.Pane, o.Code)
	switch {
	case err != nil:
		comp.Outcome = act.OutcomeError
		res = act.NewResult(c.Action, c.Pane, act.OutcomeError, "")
	case o.TimedOut:
		comp.Outcome = act.OutcomeTimeout
		res = act.NewResult(c.Action, c.Pane, act.OutcomeTimeout, "")
	default:
		comp.Outcome = act.OutcomeExited
		code := o.Code
		comp.ExitCode = &code
	}
	// What the completion's own sinks and command see is the completion,
	// not the child's context.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); isContextVar(k) {
			_ = os.Unsetenv(k)
		}
	}
	cfg, _, cerr := config.LoadResolved(configPath, config.Env(lookup))
	if cerr != nil {
		cfg = config.Default()
	}
	tc := tmuxFor(cfg)
	tty, clients, released := release(tc, c.Pane, lk)
	comp.LockReleaseFailed = !released
	home, _ := os.UserHomeDir()
	now := time.Now().UnixMilli()
	getenv := func(k string) string { v, _ := lookup(k); return v }
	s := notify.Settings{Config: cfg, Env: config.Env(lookup), Getenv: getenv, Home: home}
	notify.FireCompletion(context.Background(), s, tc, comp, clients, tty, now)
	l := act.AuditLine{Schema: 1, At: now, Source: c.Source, Action: c.Action, Kind: act.KindExec, Pane: c.Pane,
		Outcome: res.Outcome, Reason: res.Reason, ExitCode: res.ExitCode}
	if c.Batch != "" {
		l.Batch = &c.Batch
	}
	if c.Device != "" {
		l.Device = &c.Device
	}
	if c.Agent != "" {
		l.Agent = &c.Agent
	}
	if c.EpisodeMS > 0 {
		l.EpisodeMS = &c.EpisodeMS
	}
	act.AppendAudit(cfg.ActLog(home), l)
	return 0
}

// readLock reads the lock value the broker hands over: one line, bounded
// in size and time.
func readLock(r io.Reader) (act.Lock, bool) {
	ch := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(io.LimitReader(r, 512)).ReadString('\n')
		ch <- strings.TrimSpace(line)
	}()
	select {
	case s := <-ch:
		return act.ParseLock(s)
	case <-time.After(HandOverWait):
		return act.Lock{}, false
	}
}

// release gives the lock up (guarded on the exact value held, so a lock
// that expired and was taken by another fire is left alone) and reads, in
// the same tmux call, what the completion's sinks need: the pane's tty and
// the attached clients. released is false only when the pane still holds
// this lock afterwards or tmux could not be asked; a pane that is gone
// took its lock with it.
func release(tc *tmux.Client, pane string, lk act.Lock) (tty string, clients []string, released bool) {
	rel, err := tmux.Write{Pane: pane, Guard: act.ReleaseGuard(lk), Sets: []tmux.Set{{Name: act.LockOption, Unset: true}}}.Line()
	if err != nil {
		return "", nil, false
	}
	out, _, err := tc.Batch(context.Background(), []string{rel,
		// The pane id rides each line: display falls back to another pane
		// when this one is gone, and that pane's tty must not ring.
		"display -p -t " + pane + " 'lock:#{pane_id}:#{" + act.LockOption + "}'",
		"display -p -t " + pane + " 'tty:#{pane_id}:#{pane_tty}'",
		"list-clients -F 'client:#{client_name}'"})
	if err != nil {
		return "", nil, false
	}
	released = true
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "lock:"+pane+":"):
			released = strings.TrimPrefix(l, "lock:"+pane+":") != lk.String()
		case strings.HasPrefix(l, "tty:"+pane+":"):
			tty = strings.TrimPrefix(l, "tty:"+pane+":")
		case strings.HasPrefix(l, "client:"):
			clients = append(clients, strings.TrimPrefix(l, "client:"))
		}
	}
	return tty, clients, released
}
