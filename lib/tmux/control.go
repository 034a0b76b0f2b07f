package tmux

import (
	"bufio"
	"context"
	"os"
	"strings"
	"sync"
	"time"
)

// Pusher watches sessions through tmux control-mode clients and signals when
// something a cycle would see may have changed: output in any pane of the
// session (%output, which tmux sends for hidden windows too), windows or
// panes opened, closed or selected, copy mode entered or left.
//
// Control clients have costs, so there are few of them (one per session, at
// most MaxControlClients): each counts as an attached client of its session
// (#{session_attached}, list-clients), and tmux suppresses the activity,
// bell and silence flags of the session's current window while one is
// attached. They attach with ignore-size, so they never resize a window,
// and send nothing. Not read-only: tmux 3.7 checks the read-only flag of
// a command's target client, which for a `tmux send-keys` from outside any
// client (a script, cron, tma act over ssh) is the session's most recent
// client, often one of these, and refuses it ("client is read-only").
type Pusher struct {
	C      chan struct{} // receives (non-blocking, coalescing) on every push
	client *Client
	mu     sync.Mutex
	procs  map[string]controlProc // session id -> its control client
	dead   map[string]time.Time   // session id -> when its client failed
	live   sync.WaitGroup         // one per control client not yet reaped
	output map[string]int64       // pane id -> its latest %output (epoch ms), since TakeOutput
}

// MaxControlClients bounds the control clients one follower keeps.
const MaxControlClients = 4

// ReprobeAfter is how long a session whose control client failed is polled
// before control mode is tried again.
const ReprobeAfter = 30 * time.Second

// NewPusher returns a pusher for the client's server; call Sync each cycle
// with the sessions it saw.
func (c *Client) NewPusher() *Pusher {
	return &Pusher{C: make(chan struct{}, 1), client: c, procs: map[string]controlProc{}, dead: map[string]time.Time{}, output: map[string]int64{}}
}

func (p *Pusher) push() {
	select {
	case p.C <- struct{}{}:
	default:
	}
}

// Sync attaches control clients to (up to MaxControlClients of) sessions and
// detaches the ones whose sessions are gone. It reports how many sessions
// are watched.
func (p *Pusher) Sync(sessions []string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	want := map[string]bool{}
	for _, s := range sessions {
		want[s] = true
	}
	for s, cp := range p.procs {
		if !want[s] {
			cp.stop()
			delete(p.procs, s)
		}
	}
	for _, s := range sessions {
		if len(p.procs) >= MaxControlClients {
			break
		}
		if _, ok := p.procs[s]; ok {
			continue
		}
		if t, ok := p.dead[s]; ok && time.Since(t) < ReprobeAfter {
			continue
		}
		if err := p.attach(s); err != nil {
			p.dead[s] = time.Now()
		}
	}
	return len(p.procs)
}

func (p *Pusher) attach(session string) error {
	cp, err := p.client.startControl(context.Background(), session, "ignore-size")
	if err != nil {
		return err
	}
	stdin, out := cp.stdin(), cp.stdout()
	p.procs[session] = cp
	p.live.Add(1)
	ready := make(chan struct{})
	var once sync.Once
	isReady := func() { once.Do(func() { close(ready) }) }
	go func() {
		defer p.live.Done()
		defer isReady()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			isReady()
			line := sc.Text()
			if !pushes(line) {
				continue
			}
			if pane := outputPane(line); pane != "" {
				p.mu.Lock()
				p.output[pane] = time.Now().UnixMilli()
				p.mu.Unlock()
			}
			p.push()
		}
		_ = stdin.Close()
		_ = cp.wait()
		p.mu.Lock()
		if p.procs[session] == cp {
			delete(p.procs, session)
			p.dead[session] = time.Now()
		}
		p.mu.Unlock()
		p.push() // the watched set changed: let the next cycle re-sync
	}()
	// One control client identifying at a time. tma's own client never
	// leaves the server a half-identified control client (ctlclient), but
	// the wait costs nothing and keeps a follower's attaches in order: the
	// client's first line comes after its identify.
	select {
	case <-ready:
	case <-time.After(ReadyWait):
	}
	return nil
}

// ReadyWait bounds how long an attach waits for its control client's first
// line before the next one starts.
const ReadyWait = time.Second

// controlEnv is the environment a control client is identified with: what
// tmux needs to find the socket, nothing else. Together with attach -E (the
// session's update-environment is not applied) it keeps a follower's own
// environment (a daemon's, started from some old shell) out of the user's
// sessions.
func controlEnv() []string {
	var env []string
	for _, k := range []string{"TMUX_TMPDIR", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// pushes reports whether a control-mode line is news a cycle should see.
func pushes(line string) bool {
	for _, n := range []string{"%output ", "%extended-output ", "%window-add", "%window-close", "%unlinked-window-close",
		"%window-pane-changed", "%session-window-changed", "%pane-mode-changed", "%sessions-changed", "%layout-change", "%exit"} {
		if strings.HasPrefix(line, n) {
			return true
		}
	}
	return false
}

// outputPane is the pane a %output (or %extended-output) line is about, ""
// for any other line.
func outputPane(line string) string {
	rest, ok := strings.CutPrefix(line, "%output ")
	if !ok {
		if rest, ok = strings.CutPrefix(line, "%extended-output "); !ok {
			return ""
		}
	}
	id, _, _ := strings.Cut(rest, " ")
	if !ValidPaneID(id) {
		return ""
	}
	return id
}

// TakeOutput returns, per pane, when it last wrote output since the previous
// call (epoch ms), and forgets them: the raw material of the daemon's
// active->quiet edges.
func (p *Pusher) TakeOutput() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.output) == 0 {
		return nil
	}
	out := p.output
	p.output = map[string]int64{}
	return out
}

// CloseWait bounds how long Close waits for the killed clients to be
// reaped: a follower ending on a signal must be gone within a second.
const CloseWait = 500 * time.Millisecond

// Close ends every control client and waits (at most CloseWait) until they
// are reaped, so none outlives the follower that started it.
func (p *Pusher) Close() {
	p.mu.Lock()
	for s, cp := range p.procs {
		cp.stop()
		delete(p.procs, s)
	}
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.live.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(CloseWait):
	}
}

// Watched is how many control clients are attached now.
func (p *Pusher) Watched() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.procs)
}
