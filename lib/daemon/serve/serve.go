package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/remote"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/view"
)

// Loaded is the config and manifest set the daemon runs on.
type Loaded struct {
	Config     *config.Config
	ConfigPath string // the file it came from, "" for the built-in defaults
	Manifests  *manifest.Set
	Problems   []string // user manifests skipped, one line each
}

// Options configure one daemon.
type Options struct {
	Paths     daemon.Paths // Paths.Server is the tmux server's #{socket_path}
	ServerPID int          // the tmux server's pid: the daemon ends with it
	Version   string
	// Load reads the user's config and manifests (a reload calls it again).
	Load func() (*Loaded, error)
	// TmuxBin is the tmux client binary a config selects.
	TmuxBin func(*config.Config) string
	// Stages are the pipeline, in order; each already carries -S <server>
	// and --config <Paths.Config>, the snapshot of the config the daemon
	// accepted, and takes what its ArgsFrom adds at each start.
	Stages []Stage
	Env    []string // the stages' environment
	Log    *Log
	// RecordPath is install-state.toml: the tmux hooks install-hooks put on
	// this server, re-armed on start when the server lacks them.
	RecordPath string
	// Started runs once the daemon holds its lock and socket, on a
	// goroutine of its own, with a context that ends when Run returns: a
	// companion the daemon hosts ([serve.http] enabled) starts only in
	// the one daemon that won the lock, and stops with it.
	Started func(ctx context.Context)
}

// The daemon checks that its tmux server is alive every [daemon]
// zero_member_recheck_secs, and at once when its pipeline ends. It holds no
// control client of its own, so nothing else would tell it; its scan does,
// and the scan ends when a push (or its poll) finds the server gone, so the
// pipeline's end is the prompt path and the recheck the clientless one.
// With the default of 1 s either way it exits well inside 2 s of the
// server's end.
func (d *state) recheck() time.Duration {
	return time.Duration(max(d.current().Config.Daemon.ZeroMemberRecheckSecs, 1)) * time.Second
}

// RequestTimeout bounds how long a client may take to send its request.
const RequestTimeout = 2 * time.Second

// state is the running daemon.
type state struct {
	o       Options
	started time.Time
	ctx     context.Context

	mu          sync.Mutex
	loaded      *Loaded
	latest      []byte // the latest cycle as records, ready for a status reply
	lastRows    []*record.Row
	cycles      int64
	lastCycleMS int64
	pipeline    string
	reloadMS    int64
	reloadErr   string
	ring        *daemon.Ring
	subs        map[chan daemon.Edge]struct{}
	status      string
	statusSet   bool
	names       names        // [daemon.window_names]; the main loop's own
	pool        *remote.Pool // the connections VerbRemote asks over

	writes chan func(*tmux.Client)
	ended  chan struct{} // the pipeline stopped running: check the server now
}

// Run is the daemon: it takes the lock (another daemon holding it is
// *daemon.ErrRunning), binds the socket, and only then loads the config
// and starts the pipeline, so a client can tell a daemon that is coming up
// (bound) from none. It returns on SIGTERM or SIGINT, or when its tmux
// server exits, having stopped its stages (which takes their control
// clients with them) and removed its socket.
func Run(o Options) error {
	lock, err := daemon.Acquire(o.Paths, o.Version)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := daemon.RemoveStaleSocket(o.Paths); err != nil {
		return err
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", o.Paths.Socket)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("binding %s: %w", o.Paths.Socket, err)
	}
	defer ln.Close() // a unix listener removes its socket file on close
	_ = os.Chmod(o.Paths.Socket, 0o600)

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	signal.Ignore(syscall.SIGPIPE)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The writes outlive the pipeline's context: what is queued at a stop
	// (the restore, @tma_status's unset, a hook's commit) still lands,
	// each bounded by the tmux client's own timeout.
	d := &state{o: o, started: time.Now(), ctx: context.Background(), ring: daemon.NewRing(), subs: map[chan daemon.Edge]struct{}{},
		writes: make(chan func(*tmux.Client), 64), pipeline: "starting", ended: make(chan struct{}, 1),
		pool: remote.NewPool(o.Version, remote.PoolIdle)}
	defer d.pool.Close() // the held ssh sessions end with the daemon
	go d.serve(ln)
	if o.Started != nil {
		done := make(chan struct{})
		go func() { o.Started(ctx); close(done) }()
		// The companion is gone before the lock is released, so a
		// successor can bind what it bound.
		defer func() { cancel(); <-done }()
	}
	o.Log.Printf("daemon %s (pid %d) for %s: socket %s", o.Version, os.Getpid(), o.Paths.Server, o.Paths.Socket)

	l, err := d.load()
	if err != nil {
		return fmt.Errorf("loading the config and manifests: %w", err)
	}
	d.loaded = l
	for _, p := range l.Problems {
		o.Log.Printf("manifest skipped: %s", p)
	}

	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for f := range d.writes {
			f(d.client())
		}
	}()
	d.writes <- d.rearm

	cycles := make(chan *Cycle, 4)
	supDone := make(chan struct{})
	go func() {
		defer close(supDone)
		supervise(ctx, d.stages, o.Env, o.Log, cycles, d.setPipeline)
	}()

	watch := time.NewTimer(d.recheck())
	defer watch.Stop()
	why := ""
loop:
	for {
		select {
		case c := <-cycles:
			d.onCycle(c)
		case s := <-sigs:
			if s == syscall.SIGHUP {
				d.reload()
				continue
			}
			why = "signal " + s.String()
			break loop
		case <-watch.C:
			if !serverAlive(o.ServerPID, o.Paths.Server) {
				why = "its tmux server exited"
				break loop
			}
			watch.Reset(d.recheck())
		case <-d.ended:
			if !serverAlive(o.ServerPID, o.Paths.Server) {
				why = "its tmux server exited"
				break loop
			}
		}
	}
	o.Log.Printf("stopping: %s", why)
	cancel()
	<-supDone
	_ = ln.Close()
	d.mu.Lock()
	for ch := range d.subs {
		close(ch)
		delete(d.subs, ch)
	}
	d.mu.Unlock()
	// A status line reading #{E:@tma_status} goes blank rather than show
	// counts nobody refreshes, and the windows tma renamed get their names
	// back.
	if serverAlive(o.ServerPID, o.Paths.Server) {
		if d.names.on {
			d.writes <- d.restoreNames
		}
		d.writes <- func(tc *tmux.Client) {
			tc.Timeout = time.Second
			_, _ = tc.Exec(context.Background(), []string{"set -gu @tma_status"})
		}
	}
	close(d.writes)
	<-writerDone
	o.Log.Printf("stopped")
	return nil
}

// serverAlive: the server's pid is alive (not a zombie its parent has yet
// to reap: a server started with -d is init's child) and its socket is
// still there (a server whose socket is gone cannot be reached by anything
// tma runs).
func serverAlive(pid int, socket string) bool {
	if pid > 0 {
		if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
			return false
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
				return false
			}
		}
	}
	_, err := os.Stat(socket)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

func (d *state) current() *Loaded {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.loaded
}

// stages is the pipeline to start now, under the current config.
func (d *state) stages() []Stage {
	cfg := d.current().Config
	out := make([]Stage, len(d.o.Stages))
	for i, s := range d.o.Stages {
		out[i] = s.With(cfg)
	}
	return out
}

// client is a tmux client for the server under the current config.
func (d *state) client() *tmux.Client {
	return tmux.New(d.o.TmuxBin(d.current().Config), tmux.Target{SocketPath: d.o.Paths.Server})
}

func (d *state) setPipeline(s string) {
	d.mu.Lock()
	d.pipeline = s
	if s != "running" {
		d.latest = nil // a reader must not take a cycle that is going stale
	}
	d.mu.Unlock()
	if s != "running" && d.ended != nil {
		select {
		case d.ended <- struct{}{}:
		default:
		}
	}
}

// load reads the user's config and manifests and, when they are good,
// writes the config's bytes to the snapshot the stages read. The daemon
// runs on the snapshot's parse, so it and its stages agree on the same
// bytes, and a file broken after this never reaches a stage (a stage that
// restarts reads the snapshot, never the broken file).
func (d *state) load() (*Loaded, error) {
	l, err := d.o.Load()
	if err != nil {
		return nil, err
	}
	var data []byte
	if l.ConfigPath != "" {
		if data, err = os.ReadFile(l.ConfigPath); err != nil {
			return nil, err
		}
	}
	tmp, err := os.CreateTemp(d.o.Paths.Dir, "."+filepath.Base(d.o.Paths.Config)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	cfg, err := config.Load(tmp.Name())
	if err != nil {
		return nil, fmt.Errorf("%s changed while it was read: %v", l.ConfigPath, err)
	}
	if err := os.Rename(tmp.Name(), d.o.Paths.Config); err != nil {
		return nil, err
	}
	l.Config = cfg
	return l, nil
}

// reload is SIGHUP: a new pair in place, or the old one kept and the
// failure logged (hello reports it, doctor shows it).
func (d *state) reload() {
	l, err := d.load()
	d.mu.Lock()
	d.reloadMS = time.Now().UnixMilli()
	if err != nil {
		d.reloadErr = err.Error()
		d.mu.Unlock()
		d.o.Log.Printf("reload failed, keeping the previous config and manifests: %v", err)
		return
	}
	d.reloadErr = ""
	d.loaded = l
	rows := d.lastRows
	d.mu.Unlock()
	d.o.Log.Printf("reloaded the config (%s) and manifests", orDefaults(l.ConfigPath))
	for _, p := range l.Problems {
		d.o.Log.Printf("manifest skipped: %s", p)
	}
	if rows != nil {
		d.statusOption(rows) // the glyphs and colours may have changed
		d.windowNames(rows)  // the format may have, or the feature gone
	}
}

func orDefaults(p string) string {
	if p == "" {
		return "built-in defaults"
	}
	return p
}

// onCycle takes one cycle from the pipeline: it becomes the latest, its
// transitions go to the ring and wake the subscribers, and @tma_status
// follows it.
func (d *state) onCycle(c *Cycle) {
	for _, e := range c.Errors {
		d.o.Log.Printf("%s: %s", e.Tool, e.Message)
	}
	if c.Cycle == nil {
		return
	}
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	_ = w.Write(c.Cycle)
	for _, r := range c.Rows {
		_ = w.Write(r)
	}
	_ = w.Write(&record.End{NowMS: c.Cycle.NowMS})
	_ = w.Flush()
	d.mu.Lock()
	d.latest, d.lastRows = buf.Bytes(), c.Rows
	d.cycles++
	d.lastCycleMS = c.Cycle.NowMS
	ts := d.ring.Observe(c.Rows, c.Cycle.NowMS)
	d.mu.Unlock()
	if len(ts) > 0 {
		var panes []string
		for _, t := range ts {
			from := "-"
			if t.From != nil {
				from = *t.From
			}
			d.o.Log.Printf("transition %s %s: %s -> %s (%s)", t.Pane, t.Agent, from, t.To, t.Src)
			panes = append(panes, t.Pane)
		}
		d.broadcast(daemon.Edge{Edge: "cycle", AtMS: c.Cycle.NowMS, Panes: panes})
	}
	d.statusOption(c.Rows)
	d.windowNames(c.Rows)
}

// statusOption keeps @tma_status equal to what `tma status` prints, written
// only when it changes.
func (d *state) statusOption(rows []*record.Row) {
	cfg := d.current().Config
	s := view.StatusTmux(rows, func(class string) view.Style {
		st := cfg.StatusStyle(class)
		return view.Style{Glyph: st.Glyph, Color: st.Color}
	})
	d.mu.Lock()
	if d.statusSet && s == d.status {
		d.mu.Unlock()
		return
	}
	d.status, d.statusSet = s, true
	d.mu.Unlock()
	line, err := tmux.ServerSet("@tma_status", s)
	if err != nil {
		d.o.Log.Printf("@tma_status: %v", err)
		return
	}
	d.enqueue(func(tc *tmux.Client) {
		if stderr, err := tc.Exec(d.ctx, []string{line}); err != nil || strings.TrimSpace(stderr) != "" {
			d.o.Log.Printf("writing @tma_status: %v %s", err, strings.TrimSpace(stderr))
			d.mu.Lock()
			d.statusSet = false // try again on the next cycle
			d.mu.Unlock()
		}
	})
}

// enqueue hands a write to the one writer; false when its queue is full.
func (d *state) enqueue(f func(*tmux.Client)) bool {
	select {
	case d.writes <- f:
		return true
	default:
		return false
	}
}

func (d *state) broadcast(e daemon.Edge) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for ch := range d.subs {
		select {
		case ch <- e:
		default: // a wake is already pending: it covers this one
		}
	}
}

// serve answers the socket until the listener closes.
func (d *state) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go d.handle(c)
	}
}

func (d *state) handle(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(RequestTimeout))
	r := bufio.NewReaderSize(c, 64<<10)
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		c.Close()
		return
	}
	var req daemon.Request
	if err := json.Unmarshal(line, &req); err != nil {
		d.reply(c, daemon.Reply{Code: daemon.CodeBadRequest, Error: "a request is one JSON object on one line"})
		c.Close()
		return
	}
	switch req.Verb {
	case daemon.VerbHello:
		d.reply(c, daemon.Reply{OK: true, Hello: d.hello()})
	case daemon.VerbStatus:
		d.mu.Lock()
		latest := d.latest
		d.mu.Unlock()
		if latest == nil {
			d.reply(c, daemon.Reply{Code: daemon.CodeNotReady, Error: "no cycle yet"})
			break
		}
		if d.reply(c, daemon.Reply{OK: true}) == nil {
			_, _ = c.Write(latest)
		}
	case daemon.VerbEvent:
		d.reply(c, d.event(req.Event))
	case daemon.VerbTransitions:
		d.mu.Lock()
		doc := d.ring.Doc()
		d.mu.Unlock()
		d.reply(c, daemon.Reply{OK: true, Transitions: doc})
	case daemon.VerbSubscribe:
		d.subscribe(c, r)
		return
	case daemon.VerbRemote:
		d.reply(c, d.remote(c, req.Remote))
	default:
		d.reply(c, daemon.Reply{Code: daemon.CodeUnknownVerb,
			Error: fmt.Sprintf("unknown verb %q (this daemon is tma %s; it knows %s)", req.Verb, d.o.Version, strings.Join(daemon.Verbs, ", "))})
	}
	c.Close()
}

func (d *state) reply(c net.Conn, rep daemon.Reply) error {
	rep.Version = d.o.Version
	b, _ := json.Marshal(rep)
	_, err := c.Write(append(b, '\n'))
	return err
}

func (d *state) hello() *daemon.Hello {
	d.mu.Lock()
	defer d.mu.Unlock()
	return &daemon.Hello{Version: d.o.Version, PID: os.Getpid(), Server: d.o.Paths.Server, Verbs: daemon.Verbs,
		StartedMS: d.started.UnixMilli(), Cycles: d.cycles, LastCycleMS: d.lastCycleMS, Pipeline: d.pipeline,
		ReloadMS: d.reloadMS, ReloadError: d.reloadErr}
}

// subscribe holds the connection open and writes one Edge per wake until
// the client goes (a read that ends) or the daemon stops.
func (d *state) subscribe(c net.Conn, r *bufio.Reader) {
	defer c.Close()
	if d.reply(c, daemon.Reply{OK: true}) != nil {
		return
	}
	_ = c.SetDeadline(time.Time{})
	ch := make(chan daemon.Edge, 1)
	d.mu.Lock()
	d.subs[ch] = struct{}{}
	d.mu.Unlock()
	gone := make(chan struct{})
	go func() {
		_, _ = r.ReadByte() // a subscriber sends nothing more: any return is its end
		close(gone)
	}()
	defer func() {
		d.mu.Lock()
		if _, ok := d.subs[ch]; ok {
			delete(d.subs, ch)
		}
		d.mu.Unlock()
	}()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			b, _ := json.Marshal(e)
			_ = c.SetWriteDeadline(time.Now().Add(RequestTimeout))
			if _, err := c.Write(append(b, '\n')); err != nil {
				return
			}
		case <-gone:
			return
		}
	}
}
