package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/record"
)

// Schema is the frame schema this host speaks.
const Schema = 1

// The error codes.
const (
	CodeUnsupportedSchema = "unsupported-schema"
	CodeBadRequest        = "bad-request"
	CodeNotFound          = "not-found"
	CodeCursorInvalid     = "cursor-invalid"
	CodeScopeDenied       = "scope-denied"
	CodeTooMany           = "too-many-connections"
	CodeUnsupported       = "unsupported"
	CodeInternal          = "internal"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFail    = 1
	ExitRefused = 2
)

// MaxFrame bounds one request line.
const MaxFrame = 1 << 20

// The messages of the refusals the manual quotes.
const (
	MsgNotPaired = "this device is not paired with this host; run `tma device pair` on the host"
	MsgRevoked   = "this device is no longer paired with this host (revoked); run `tma device pair` on the host"
	MsgTooMany   = "this host already serves its [serve] max_connections connections; try again when one ends"
)

// Snapshot is one cycle's rows as the host observed them.
type Snapshot struct {
	AtMS   int64
	Server string
	Rows   []record.AgentRow
	// Panes is every pane id on the server, agent or not: what tells a
	// remote wait that its pane is gone.
	Panes []string
}

// Dispatch is a scope-cleared act request for the broker.
type Dispatch struct {
	Action string
	Pane   string
	Slot   string
	Text   *string
	// Arg is the option a question's answer picks (act --arg).
	Arg *string
	// ExpectEpisodeMS is the freshness check (act --expect-episode-ms):
	// the episode the device saw, refused episode-changed when it moved.
	ExpectEpisodeMS *int64
	Device          string // the device's name on this host
}

// UsageError is a dispatch the broker refused before any tmux call as
// malformed (act's exit 2: an answer without an option number, a text
// action without its line): the request's fault, never the host's.
type UsageError struct{ Msg string }

func (u *UsageError) Error() string { return u.Msg }

// Receipt is the broker's answer: the act --json result.
type Receipt struct {
	Outcome  string  `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Reason   *string `json:"reason"`
	Cached   bool    `json:"cached"`
}

// Conn is everything one connection needs from the host.
type Conn struct {
	DeviceID    string // --device, from the forced command
	DevicesPath string
	Host        string
	Version     string
	IntervalMS  int
	// Cycle runs one detection cycle (observe, fold, commit) and returns
	// its rows.
	Cycle func(ctx context.Context) (*Snapshot, error)
	// ActionKind is the kind of a loaded action ("keys", "text",
	// "exec"), ok false when none is loaded under that name.
	ActionKind func(name string) (kind string, ok bool)
	// Fire hands a cleared dispatch to the broker.
	Fire func(ctx context.Context, d Dispatch) (Receipt, error)
	// Receipts reads the ledger: the receipts document's array.
	Receipts func(ctx context.Context, slot string) (json.RawMessage, error)
	// Window reads one page of a pane's transcript: the tma transcript
	// --json document, or a refusal (its code and message).
	Window func(ctx context.Context, w WindowRequest) (doc []byte, refusal *Refusal, err error)
	// Card reads what one pane waits on; nil when the pane holds no
	// agent (or is gone).
	Card func(ctx context.Context, pane string) (*PaneCard, error)
	Now  func() int64
	Log  func(format string, a ...any)
}

type request struct {
	Schema     *int            `json:"schema"`
	ID         json.RawMessage `json:"id"`
	T          string          `json:"t"`
	App        string          `json:"app"`
	AppVersion string          `json:"app_version"`
	Device     string          `json:"device"`
	Action     string          `json:"action"`
	Pane       string          `json:"pane"`
	Slot       string          `json:"slot"`
	Text       *string         `json:"text"`
	Arg        *string         `json:"arg"`
	Expect     *int64          `json:"expect_episode_ms"`
	Last       int             `json:"last"`
	Before     string          `json:"before"`
	Event      string          `json:"event"`
	Headers    bool            `json:"headers"`
}

// session is one connection's state.
type session struct {
	c          *Conn
	out        io.Writer
	mu         sync.Mutex
	hello      bool
	device     *device.Device
	subscribed string // the subscribe request's id, "" when not subscribed
	prior      map[string]string
	events     string            // the event request's id, "" when not asked
	attn       map[string]string // per pane: its class while it holds attention, unmuted
	nonce      int
}

// Refuse writes one error frame with id "0" and returns ExitRefused: the
// frame a connection gets when it is refused before any request.
func Refuse(out io.Writer, code, msg string) int {
	s := &session{out: out}
	s.errorFrame("0", code, msg)
	return ExitRefused
}

// Fail writes one error frame with id "0" and returns ExitFail: the host
// could not start serving (a torn device store), which is not a refusal of
// the device.
func Fail(out io.Writer, code, msg string) int {
	s := &session{out: out}
	s.errorFrame("0", code, msg)
	return ExitFail
}

// Serve answers one connection until its input ends (0), the context is
// done (0), or the device is refused (2). The device is checked first, so
// an unpaired one gets its one frame without sending anything.
func (c *Conn) Serve(ctx context.Context, in io.Reader, out io.Writer) int {
	s := &session{c: c, out: out}
	if code, ok := s.authorize("0", MsgNotPaired); !ok {
		return code
	}
	c.Log("device %s (%s) connected", s.device.Name, c.DeviceID)
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r)
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	tick := time.NewTicker(time.Duration(c.IntervalMS) * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			c.Log("device %s: ended by signal", s.device.Name)
			return ExitOK
		case err := <-readErr:
			if errors.Is(err, errTooLong) {
				s.errorFrame("0", CodeBadRequest, fmt.Sprintf("a frame longer than %d bytes", MaxFrame))
				return ExitRefused
			}
			if !errors.Is(err, io.EOF) {
				c.Log("device %s: reading: %v", s.device.Name, err)
			}
			return ExitOK
		case line := <-lines:
			if code, done := s.request(ctx, line); done {
				return code
			}
		case <-tick.C:
			// The store is re-read at every publish, and at the same
			// cadence when nothing is subscribed, so a revoke ends an
			// idle connection too.
			if code, ok := s.authorize("0", MsgRevoked); !ok {
				return code
			}
			if s.subscribed != "" || s.events != "" {
				s.publish(ctx)
			}
		}
	}
}

var errTooLong = errors.New("frame too long")

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxFrame {
			return nil, errTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, err
	}
}

// authorize re-reads the store. A device that is gone gets one
// scope-denied frame and the connection ends (ok false).
func (s *session) authorize(id, msg string) (int, bool) {
	st, err := device.Load(s.c.DevicesPath)
	if err != nil {
		s.c.Log("%v", err)
		s.errorFrame(id, CodeInternal, "the host's device store cannot be read")
		return ExitFail, false
	}
	d := st.ByID(s.c.DeviceID)
	if d == nil {
		if s.device != nil {
			s.c.Log("device %s (%s) refused: revoked", s.device.Name, s.c.DeviceID)
		} else {
			s.c.Log("device %s refused: not paired", s.c.DeviceID)
		}
		s.errorFrame(id, CodeScopeDenied, msg)
		return ExitRefused, false
	}
	s.device = d
	return 0, true
}

var (
	paneRE   = regexp.MustCompile(`^%[0-9]{1,9}$`)
	actionRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
	slotRE   = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,128}$`)
)

// request answers one frame; done is true when the connection ends.
func (s *session) request(ctx context.Context, line []byte) (code int, done bool) {
	var q request
	if err := json.Unmarshal(line, &q); err != nil {
		s.errorFrame("0", CodeBadRequest, "not a JSON object: "+err.Error())
		return 0, false
	}
	id, ok := idString(q.ID)
	if !ok {
		s.errorFrame("0", CodeBadRequest, `"id" must be a string`)
		return 0, false
	}
	if q.Schema == nil || *q.Schema != Schema {
		s.errorFrame(id, CodeUnsupportedSchema, fmt.Sprintf("this host speaks schema %d", Schema))
		return 0, false
	}
	if code, ok := s.authorize(id, MsgRevoked); !ok {
		return code, true
	}
	if !s.hello && q.T != "hello" {
		s.errorFrame(id, CodeBadRequest, "send hello first")
		return 0, false
	}
	switch q.T {
	case "hello":
		s.hello = true
		s.c.Log("device %s: hello from app %q %q (claims device %q)", s.device.Name, q.App, q.AppVersion, q.Device)
		s.frame(fields("schema", Schema, "id", id, "t", "hello", "host", s.c.Host, "tma_version", s.c.Version,
			"reconcile_interval_ms", s.c.IntervalMS, "scopes", nonNil(s.device.Scopes)))
	case "snapshot":
		if !s.need(id, device.ScopeRead) {
			return 0, false
		}
		snap, err := s.c.Cycle(ctx)
		if err != nil {
			s.c.Log("device %s: cycle: %v", s.device.Name, err)
			s.errorFrame(id, CodeInternal, "the host's cycle failed: "+err.Error())
			return 0, false
		}
		s.snapshotFrame(id, snap)
	case "subscribe":
		if !s.need(id, device.ScopeRead) {
			return 0, false
		}
		s.subscribed, s.prior = id, nil
		s.frame(fields("schema", Schema, "id", id, "t", "ack"))
		// The first cycle is the silent baseline: a client that wants the
		// present asks for a snapshot first.
		s.publish(ctx)
	case "event":
		if !s.need(id, device.ScopeRead) {
			return 0, false
		}
		s.events, s.attn = id, nil
		s.frame(fields("schema", Schema, "id", id, "t", "ack"))
		s.publish(ctx)
	case "unsubscribe":
		// Ends both streams: edges and events.
		s.subscribed, s.prior = "", nil
		s.events, s.attn = "", nil
		s.frame(fields("schema", Schema, "id", id, "t", "ack"))
	case "card":
		if !s.need(id, device.ScopeRead) {
			return 0, false
		}
		s.cardFrame(ctx, id, &q)
	case "dispatch":
		s.dispatch(ctx, id, &q)
	case "window":
		if !s.need(id, device.ScopeRead) {
			return 0, false
		}
		s.window(ctx, id, &q)
	case "receipts":
		if !s.need(id, device.ScopeRead) {
			return 0, false
		}
		if q.Slot != "" && !slotRE.MatchString(q.Slot) {
			s.errorFrame(id, CodeBadRequest, "invalid slot")
			return 0, false
		}
		rs, err := s.c.Receipts(ctx, q.Slot)
		if err == nil {
			rs, err = OwnReceipts(rs, s.device)
		}
		if err != nil {
			s.errorFrame(id, CodeInternal, err.Error())
			return 0, false
		}
		s.frame(fields("schema", Schema, "id", id, "t", "receipts", "receipts", rs))
	case "":
		s.errorFrame(id, CodeBadRequest, `no "t"`)
	default:
		s.errorFrame(id, CodeUnsupported, fmt.Sprintf("this host does not answer %q frames", q.T))
	}
	return 0, false
}

func idString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "0", true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// need answers scope-denied unless the device holds scope.
func (s *session) need(id, scope string) bool {
	if s.device.Has(scope) {
		return true
	}
	s.errorFrame(id, CodeScopeDenied, fmt.Sprintf("this device does not hold %s; grant it on the host (`tma device grant %s %s`)", scope, s.device.Name, scope))
	return false
}

// dispatch gates an act request by the scope table and the device's scopes
// before anything reaches the broker: a refusal here claims no slot and
// sends nothing.
func (s *session) dispatch(ctx context.Context, id string, q *request) {
	if !actionRE.MatchString(q.Action) || !paneRE.MatchString(q.Pane) || (q.Slot != "" && !slotRE.MatchString(q.Slot)) {
		s.errorFrame(id, CodeBadRequest, "dispatch needs an action name, a pane id (%N) and at most a plain slot id")
		return
	}
	slot := q.Slot
	if slot == "" {
		s.nonce++
		slot = fmt.Sprintf("serve-%d-%d", s.c.Now(), s.nonce)
	}
	refuse := func(why string) {
		s.c.Log("device %s: %s on %s refused: %s", s.device.Name, q.Action, q.Pane, why)
		s.receiptFrame(id, q, slot, Receipt{Outcome: "refused", ExitCode: 4, Reason: &scopeDenied})
	}
	if why := Gate(s.device, q.Action, s.c.ActionKind); why != "" {
		refuse(why)
		return
	}
	r, err := s.c.Fire(ctx, Dispatch{Action: q.Action, Pane: q.Pane, Slot: slot, Text: q.Text,
		Arg: q.Arg, ExpectEpisodeMS: q.Expect, Device: s.device.Name})
	if err != nil {
		s.c.Log("device %s: %s on %s: %v", s.device.Name, q.Action, q.Pane, err)
		code := CodeInternal
		if errors.As(err, new(*UsageError)) {
			code = CodeBadRequest
		}
		s.errorFrame(id, code, err.Error())
		return
	}
	s.c.Log("device %s: %s on %s: %s", s.device.Name, q.Action, q.Pane, r.Outcome)
	s.receiptFrame(id, q, slot, r)
}

var scopeDenied = "scope-denied"

// Gate is the scope table's word on d dispatching action, before the
// broker is called: "" when it may go on, else why it is refused. Both
// faces of serve (--stdio and --http) ask it.
func Gate(d *device.Device, action string, actionKind func(string) (string, bool)) string {
	scope, ok := ScopeFor(action)
	if !ok {
		return "outside the remote action table"
	}
	if kind, loaded := actionKind(action); loaded && kind == "exec" {
		return "an exec action"
	}
	if !d.Has(scope) {
		return "needs " + scope
	}
	return ""
}

func (s *session) receiptFrame(id string, q *request, slot string, r Receipt) {
	s.frame(fields("schema", Schema, "id", id, "t", "receipt", "slot", slot, "pane", q.Pane, "action", q.Action,
		"device", s.device.Name, "outcome", r.Outcome, "exit_code", r.ExitCode, "reason", r.Reason, "cached", r.Cached))
}

func (s *session) snapshotFrame(id string, snap *Snapshot) {
	rows := make([]json.RawMessage, 0, len(snap.Rows))
	for _, r := range snap.Rows {
		b, err := record.MarshalRemote(r)
		if err != nil {
			s.errorFrame(id, CodeInternal, err.Error())
			return
		}
		rows = append(rows, b)
	}
	panes := snap.Panes
	if panes == nil {
		panes = []string{}
	}
	s.frame(fields("schema", Schema, "id", id, "t", "snapshot", "at_ms", snap.AtMS, "server", snap.Server, "rows", rows, "panes", panes))
}

// publish runs the streams' one cycle and sends what it shows: edges to a
// subscribe, events to an event request.
func (s *session) publish(ctx context.Context) {
	snap, err := s.c.Cycle(ctx)
	if err != nil {
		s.c.Log("device %s: cycle: %v", s.device.Name, err)
		return
	}
	if s.subscribed != "" {
		s.edges(snap)
	}
	if s.events != "" {
		s.notices(snap)
	}
}

// notices sends an event per pane that came to want the user: its
// attention rose (it blocked, or its turn ended) on a pane that is not
// muted, or its class changed while it held attention (done, then
// blocked). That is the moment a [notify] command would fire, and an event
// carries the notification payload's metadata, title-free and with no
// screen content (card is the frame that reads a dialog). The first cycle
// after the request only sets the baseline.
func (s *session) notices(snap *Snapshot) {
	now := map[string]string{}
	for _, r := range snap.Rows {
		if r.Attention && !r.Muted {
			now[r.Pane] = r.Class()
		}
	}
	prior := s.attn
	s.attn = now
	if prior == nil {
		return
	}
	for _, r := range snap.Rows {
		c, ok := now[r.Pane]
		if !ok || prior[r.Pane] == c {
			continue
		}
		s.frame(fields("schema", Schema, "id", s.events, "t", "event", "pane", r.Pane, "agent", r.Agent,
			"state", r.State, "detail", r.Detail, "done", r.Done, "session", r.Session, "locator", r.Locator,
			"repo", r.Repo, "branch", r.Branch, "since_ms", r.SinceMS, "episode_ms", r.EpisodeMS,
			"context_pct", r.Context, "at_ms", snap.AtMS))
	}
}

// edges sends an edge per pane whose class moved (a pane that appeared
// comes from null, one that left goes to null). The first cycle after
// subscribe only sets the baseline.
func (s *session) edges(snap *Snapshot) {
	now := map[string]string{}
	rows := map[string]record.AgentRow{}
	for _, r := range snap.Rows {
		now[r.Pane], rows[r.Pane] = r.Class(), r
	}
	first := s.prior == nil
	prior := s.prior
	s.prior = now
	if first {
		return
	}
	for _, r := range snap.Rows {
		from, had := prior[r.Pane]
		if had && from == now[r.Pane] {
			continue
		}
		b, err := record.MarshalRemote(r)
		if err != nil {
			continue
		}
		var f any
		if had {
			f = from
		}
		s.frame(fields("schema", Schema, "id", s.subscribed, "t", "edge", "pane", r.Pane, "from", f, "to", now[r.Pane],
			"at_ms", snap.AtMS, "row", json.RawMessage(b)))
	}
	for pane, from := range prior {
		if _, ok := now[pane]; !ok {
			s.frame(fields("schema", Schema, "id", s.subscribed, "t", "edge", "pane", pane, "from", from, "to", nil,
				"at_ms", snap.AtMS, "row", nil))
		}
	}
}

func (s *session) errorFrame(id, code, msg string) {
	s.frame(errFrame{Schema, id, "error", code, msg})
}

// errFrame keeps the manual's key order.
type errFrame struct {
	Schema  int    `json:"schema"`
	ID      string `json:"id"`
	T       string `json:"t"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// frame writes one line. Only frames reach the output.
func (s *session) frame(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.out.Write(append(b, '\n'))
}

// Obj is a JSON object that keeps the order its fields were given in: a
// frame's keys read schema, id, t first, as the manual prints them.
type Obj []any

// Fields builds an Obj from key, value pairs.
func Fields(kv ...any) Obj { return Obj(kv) }

// fields builds an Obj from key, value pairs.
func fields(kv ...any) Obj { return Obj(kv) }

func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(o[i])
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// OwnReceipts is the receipts a device may read: all of them for one that
// may answer (it acts beside the others), only its own for a read-only
// device, which has no business with what another device fired.
func OwnReceipts(rs json.RawMessage, d *device.Device) (json.RawMessage, error) {
	if d.Has(device.ScopeAnswer) {
		return rs, nil
	}
	var all []map[string]json.RawMessage
	if err := json.Unmarshal(rs, &all); err != nil {
		return nil, fmt.Errorf("receipt ledger: %v", err)
	}
	own := []map[string]json.RawMessage{}
	name, _ := json.Marshal(d.Name)
	for _, r := range all {
		if string(r["device"]) == string(name) {
			own = append(own, r)
		}
	}
	return json.Marshal(own)
}
