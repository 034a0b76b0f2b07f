package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/record"
)

// The wire protocol: one JSON object per line over the daemon's unix
// socket. A client sends one Request; the daemon answers with one Reply
// line, and for some verbs more lines after it (status: the records of its
// latest cycle, then EOF; subscribe: one Edge per push, until either side
// closes). A verb the daemon does not know is refused with CodeUnknownVerb,
// never dropped: that is how a newer client learns the daemon is older.

// Proto is the protocol version a Request carries.
const Proto = 1

// The verbs.
const (
	VerbHello       = "hello"       // who is there: version, pid, server, verbs, last reload
	VerbStatus      = "status"      // the latest cycle as records (cycle, row…, end)
	VerbEvent       = "event"       // a hook event to map and commit (ack or refuse)
	VerbTransitions = "transitions" // the transitions ring
	VerbSubscribe   = "subscribe"   // edge pushes, one line per wake
	VerbRemote      = "remote"      // one fresh snapshot of a [[remote]], over the connection the daemon holds to it
)

// Verbs are the verbs this build's daemon answers.
var Verbs = []string{VerbHello, VerbStatus, VerbEvent, VerbTransitions, VerbSubscribe, VerbRemote}

// Refusal codes.
const (
	CodeUnknownVerb = "unknown-verb" // a verb this daemon does not know
	CodeBadRequest  = "bad-request"  // a line that is not a request
	CodeNotReady    = "not-ready"    // no cycle yet (starting, or its pipeline is restarting)
	CodeUnmapped    = "unmapped"     // its manifests map the event to nothing
	CodeLane        = "lane"         // the event holds on the reply lane: the hook does that itself
	// CodeUnknownRemote is a remote the daemon's config has no entry for,
	// or one that differs from the asker's: the asker dials it itself.
	CodeUnknownRemote = "unknown-remote"
)

// Request is one client request.
type Request struct {
	V     int    `json:"v"`
	Verb  string `json:"verb"`
	Event *Event `json:"event,omitempty"`
	// Remote names the [[remote]] a VerbRemote asks for, as the asker's
	// config has it.
	Remote *RemoteAsk `json:"remote,omitempty"`
}

// RemoteAsk is a [[remote]] entry as the asker read it. The daemon answers
// only for an entry its own config has the same (name, command, timeout),
// so a client on another --config, or a daemon not yet reloaded, never
// answers with a different host's rows.
type RemoteAsk struct {
	Name      string   `json:"name"`
	Command   []string `json:"command"`
	TimeoutMS int64    `json:"timeout_ms"`
}

// RemoteSnap is a VerbRemote's answer: the remote's rows (host set to its
// name) and every pane id of its server, or Error, the one line a
// one-shot dial would have given (the reply is OK either way: the daemon
// did ask).
type RemoteSnap struct {
	Name  string            `json:"name"`
	Rows  []record.AgentRow `json:"rows,omitempty"`
	Panes []string          `json:"panes,omitempty"`
	Error string            `json:"error,omitempty"`
}

// Event is a hook event handed to the daemon (VerbEvent): what tma-hook
// was called with, its evidence time, and its parent chain (the agent
// process is found in it for a start event, as the hook would).
type Event struct {
	Agent string `json:"agent"`
	Name  string `json:"name"`
	Pane  string `json:"pane"`
	// Explicit: the pane was named (tma event --pane), so it is the target
	// whatever the session says; else it is the hook's $TMUX_PANE.
	Explicit bool       `json:"explicit,omitempty"`
	Payload  string     `json:"payload"`
	NowMS    int64      `json:"now_ms"`
	Chain    []Ancestor `json:"chain,omitempty"`
	// The reply lane's directory and server key as the hook sees them:
	// the next non-blocked event releases the pane's held requests there.
	LaneDir    string `json:"lane_dir,omitempty"`
	LaneServer string `json:"lane_server,omitempty"`
}

// Ancestor is one process of a hook's parent chain, nearest first.
type Ancestor struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
}

// Reply is the daemon's answer line.
type Reply struct {
	OK bool `json:"ok"`
	// Version is the daemon's build, on every reply: a client learns of a
	// skew without asking.
	Version     string          `json:"version,omitempty"`
	Code        string          `json:"code,omitempty"`
	Error       string          `json:"error,omitempty"`
	Hello       *Hello          `json:"hello,omitempty"`
	Transitions *TransitionsDoc `json:"transitions,omitempty"`
	Remote      *RemoteSnap     `json:"remote,omitempty"`
}

// Hello describes a running daemon.
type Hello struct {
	Version     string   `json:"version"`
	PID         int      `json:"pid"`
	Server      string   `json:"server"`
	Verbs       []string `json:"verbs"`
	StartedMS   int64    `json:"started_ms"`
	Cycles      int64    `json:"cycles"`
	LastCycleMS int64    `json:"last_cycle_ms"`
	// Pipeline is "running", or why it is not ("restarting in 2s: …").
	Pipeline string `json:"pipeline"`
	// The last reload: when, and its failure ("" when it took).
	ReloadMS    int64  `json:"reload_ms,omitempty"`
	ReloadError string `json:"reload_error,omitempty"`
}

// Edge is one push to a subscriber: something changed (a transition in
// the daemon's cycle, or a hook event it committed); run a cycle.
type Edge struct {
	Edge  string   `json:"edge"` // "cycle" or "hook"
	AtMS  int64    `json:"at_ms"`
	Panes []string `json:"panes,omitempty"`
}

// ErrNoDaemon is a dial that found nothing listening: no daemon, or one
// that is gone or restarting.
var ErrNoDaemon = errors.New("no daemon listening")

// Refused is a daemon's clean refusal.
type Refused struct{ Code, Msg string }

func (r *Refused) Error() string {
	if r.Msg == "" {
		return "the daemon refused: " + r.Code
	}
	return "the daemon refused (" + r.Code + "): " + r.Msg
}

// Conn is one connection to a daemon.
type Conn struct {
	c net.Conn
	r *bufio.Reader
}

// Dial connects to the daemon socket within d. Nothing listening is
// ErrNoDaemon.
func Dial(socket string, d time.Duration) (*Conn, error) {
	c, err := net.DialTimeout("unix", socket, d)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, ErrNoDaemon
		}
		return nil, err
	}
	return &Conn{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

// Call dials socket, sends req and reads the reply line, all within d. A
// refusal is *Refused; the Conn stays open for the lines that follow an OK
// reply (close it when done).
func Call(socket string, req Request, d time.Duration) (*Reply, *Conn, error) {
	deadline := time.Now().Add(d)
	c, err := Dial(socket, d)
	if err != nil {
		return nil, nil, err
	}
	_ = c.c.SetDeadline(deadline)
	rep, err := c.Do(req)
	if err != nil {
		c.Close()
		return rep, nil, err
	}
	return rep, c, nil
}

// Do sends req on an open connection and reads the reply line.
func (c *Conn) Do(req Request) (*Reply, error) {
	req.V = Proto
	b, _ := json.Marshal(req)
	if _, err := c.c.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	var rep Reply
	if err := c.ReadLine(&rep); err != nil {
		return nil, err
	}
	if !rep.OK {
		return &rep, &Refused{Code: rep.Code, Msg: rep.Error}
	}
	return &rep, nil
}

// ReadLine decodes the next line into v.
func (c *Conn) ReadLine(v any) error {
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return io.EOF
		}
		if !errors.Is(err, io.EOF) {
			return err
		}
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("the daemon sent a line that is not JSON: %v", err)
	}
	return nil
}

// Rest is what follows the reply line.
func (c *Conn) Rest() io.Reader { return c.r }

// SetDeadline bounds the connection's remaining reads and writes; zero
// clears the bound (a subscription that waits for pushes).
func (c *Conn) SetDeadline(t time.Time) { _ = c.c.SetDeadline(t) }

// Close ends the connection.
func (c *Conn) Close() { _ = c.c.Close() }

// Ask dials the daemon of p, says hello, and closes: nil, nil when no
// daemon answers.
func Ask(p Paths, d time.Duration) (*Hello, error) {
	rep, c, err := Call(p.Socket, Request{Verb: VerbHello}, d)
	if err != nil {
		if errors.Is(err, ErrNoDaemon) {
			return nil, nil
		}
		return nil, err
	}
	c.Close()
	if rep.Hello == nil {
		return nil, errors.New("the daemon's hello carried nothing")
	}
	return rep.Hello, nil
}

// AskRemote asks the daemon at socket for one snapshot of a remote, within
// d (the remote's timeout and some: the daemon bounds its own ask by the
// timeout). ErrNoDaemon, a *Refused (an older daemon, or an entry it does
// not have) or any other error means the asker dials the remote itself.
func AskRemote(socket string, ask RemoteAsk, d time.Duration) (*RemoteSnap, error) {
	rep, c, err := Call(socket, Request{Verb: VerbRemote, Remote: &ask}, d)
	if err != nil {
		return nil, err
	}
	c.Close()
	if rep.Remote == nil || rep.Remote.Name != ask.Name {
		return nil, errors.New("the daemon's remote reply carried no snapshot of " + ask.Name)
	}
	return rep.Remote, nil
}
