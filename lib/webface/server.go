package webface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/serve"
)

// Server is the web face's handler.
type Server struct {
	h    Host
	opt  Options
	mux  *http.ServeMux
	hub  *hub
	pair *bucket
	// fireMu runs one dispatch at a time: two taps on two panes queue
	// here rather than race two in-process brokers.
	fireMu sync.Mutex
}

// New builds the handler.
func New(h Host, opt Options) *Server {
	if opt.IntervalMS <= 0 {
		opt.IntervalMS = DefaultIntervalMS
	}
	if h.Now == nil {
		h.Now = time.Now
	}
	if h.Log == nil {
		h.Log = func(string, ...any) {}
	}
	s := &Server{h: h, opt: opt, mux: http.NewServeMux(), pair: newBucket(pairBurst, pairEvery, h.Now)}
	s.hub = newHub(h.Cycle, time.Duration(opt.IntervalMS)*time.Millisecond, h.Log)
	s.mux.HandleFunc("GET /{$}", s.page)
	s.mux.HandleFunc("GET /pair", s.page)
	s.mux.HandleFunc("POST /api/v1/pair", s.pairHandler)
	s.mux.HandleFunc("GET /api/v1/device", s.authed(device.ScopeRead, s.whoami))
	s.mux.HandleFunc("GET /api/v1/agents", s.authed(device.ScopeRead, s.agents))
	s.mux.HandleFunc("GET /api/v1/card", s.authed(device.ScopeRead, s.card))
	s.mux.HandleFunc("POST /api/v1/act", s.authed("", s.act))
	s.mux.HandleFunc("GET /api/v1/events", s.authed(device.ScopeRead, s.events))
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "not-found", "no such API route: "+r.Method+" "+r.URL.Path)
	})
	return s
}

// ServeHTTP applies the rules every request meets before its route: the
// Host check and the body bound.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if !s.allowedHost(r.Host) {
		s.h.Log("refused a request for Host %q (not %s or a configured name): 421", r.Host, s.opt.Listen)
		fail(w, http.StatusMisdirectedRequest, "misdirected",
			fmt.Sprintf("this server answers to %s and its configured names, not %q ([serve.http] hosts adds one)", s.opt.Listen, r.Host))
		return
	}
	if r.ContentLength > MaxBody {
		fail(w, http.StatusRequestEntityTooLarge, "too-large", fmt.Sprintf("a request body is at most %d bytes", MaxBody))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	s.mux.ServeHTTP(w, r)
}

// Close ends the event streams' shared cycle.
func (s *Server) Close() { s.hub.close() }

// errDoc is every refusal's body.
type errDoc struct {
	Schema  int    `json:"schema"`
	Error   string `json:"error"`
	Message string `json:"message"`
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tma"`)
	}
	writeJSON(w, status, errDoc{1, code, msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"schema":1,"error":"internal","message":"encoding"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// readBody decodes a JSON body, answering 413 or 400 itself.
func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		fail(w, http.StatusRequestEntityTooLarge, "too-large", fmt.Sprintf("a request body is at most %d bytes", MaxBody))
		return false
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "bad-request", "reading the body: "+err.Error())
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		fail(w, http.StatusBadRequest, "bad-request", "not a JSON object: "+err.Error())
		return false
	}
	return true
}

// authed wraps a route: the bearer token names a device in the store, read
// now, and the device holds scope ("" for a route that checks its own).
func (s *Server) authed(scope string, next func(http.ResponseWriter, *http.Request, *device.Device)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, status, msg := s.authorize(r)
		if d == nil {
			fail(w, status, map[int]string{401: "unauthorized", 500: "internal"}[status], msg)
			return
		}
		if scope != "" && !d.Has(scope) {
			fail(w, http.StatusForbidden, "scope-denied", needMsg(d, scope))
			return
		}
		next(w, r, d)
	}
}

func needMsg(d *device.Device, scope string) string {
	return fmt.Sprintf("this device does not hold %s; grant it on the host (`tma device grant %s %s`)", scope, d.Name, scope)
}

func (s *Server) authorize(r *http.Request) (*device.Device, int, string) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	tok = strings.TrimSpace(tok)
	if !ok || tok == "" {
		return nil, http.StatusUnauthorized, "no device token: send Authorization: Bearer <token> (pair with `tma device pair NAME --web` on the host)"
	}
	d, err := s.device(tok)
	if err != nil {
		s.h.Log("%v", err)
		return nil, http.StatusInternalServerError, "the host's device store cannot be read"
	}
	if d == nil {
		return nil, http.StatusUnauthorized, serve.MsgNotPaired
	}
	return d, 0, ""
}

// device is the store's device for tok, read now: a revoke takes effect on
// the next request.
func (s *Server) device(tok string) (*device.Device, error) {
	st, err := device.Load(s.h.DevicesPath)
	if err != nil {
		return nil, err
	}
	return st.ByID(device.WebID(tok)), nil
}

func (s *Server) pairHandler(w http.ResponseWriter, r *http.Request) {
	if wait, ok := s.pair.take(); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		s.h.Log("pairing attempt refused: rate limit")
		fail(w, http.StatusTooManyRequests, "rate-limited", "too many pairing attempts; wait and try again")
		return
	}
	var q struct {
		Code string `json:"code"`
	}
	if !readBody(w, r, &q) {
		return
	}
	if q.Code == "" || len(q.Code) > 128 {
		fail(w, http.StatusBadRequest, "bad-request", `pair needs {"code": …} from the pairing URL`)
		return
	}
	d, tok, err := device.Redeem(s.h.DevicesPath, strings.ToLower(strings.TrimSpace(q.Code)), s.h.Now())
	if errors.Is(err, device.ErrBadCode) {
		s.h.Log("pairing attempt refused: a bad code")
		fail(w, http.StatusUnauthorized, "bad-code", err.Error())
		return
	}
	if err != nil {
		s.h.Log("pairing: %v", err)
		fail(w, http.StatusConflict, "pair-failed", err.Error())
		return
	}
	s.h.Log("device %s paired over the web (%s)", d.Name, strings.Join(d.Scopes, ", "))
	writeJSON(w, http.StatusOK, serve.Fields("schema", 1, "device", d.Name, "token", tok, "scopes", d.Scopes))
}

func (s *Server) whoami(w http.ResponseWriter, _ *http.Request, d *device.Device) {
	writeJSON(w, http.StatusOK, serve.Fields("schema", 1, "device", d.Name, "scopes", d.Scopes,
		"host", s.opt.HostName, "tma_version", s.opt.Version))
}

// agents is the ls --json document, title-free, as over --stdio.
func (s *Server) agents(w http.ResponseWriter, r *http.Request, _ *device.Device) {
	snap, err := s.hub.fresh(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", "the host's cycle failed: "+err.Error())
		return
	}
	rows := make([]json.RawMessage, 0, len(snap.Rows))
	for _, row := range snap.Rows {
		b, err := record.MarshalRemote(row)
		if err != nil {
			fail(w, http.StatusInternalServerError, "internal", err.Error())
			return
		}
		rows = append(rows, b)
	}
	writeJSON(w, http.StatusOK, serve.Fields("schema", 1, "agents", rows, "at_ms", snap.AtMS))
}

var (
	paneRE   = regexp.MustCompile(`^%[0-9]{1,9}$`)
	actionRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
	slotRE   = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,64}$`)
)

func (s *Server) card(w http.ResponseWriter, r *http.Request, d *device.Device) {
	pane := r.URL.Query().Get("pane")
	if !paneRE.MatchString(pane) {
		fail(w, http.StatusBadRequest, "bad-request", "card needs ?pane=%N")
		return
	}
	s.hub.cycleMu.Lock()
	pc, err := s.h.Card(r.Context(), pane)
	s.hub.cycleMu.Unlock()
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	if pc == nil {
		fail(w, http.StatusNotFound, "not-found", "no agent in pane "+pane)
		return
	}
	body := append(serve.Fields("schema", 1), serve.CardBody(pc, d)...)
	writeJSON(w, http.StatusOK, append(body, "actions", s.offered(pc, d)))
}

// offered is what the page draws a button for: the remote actions this
// device holds the scope for that fit the card. The broker's gate still
// decides each tap.
func (s *Server) offered(pc *serve.PaneCard, d *device.Device) []string {
	var names []string
	switch pc.Row.State {
	case "blocked":
		switch pc.Card.Kind {
		case "permission":
			names = []string{"approve", "deny"}
		case "question":
			names = []string{"answer", "dismiss"}
		}
	case "working":
		names = []string{"interrupt", "steer_now"}
	case "idle":
		names = []string{"steer"}
	}
	out := []string{}
	for _, n := range names {
		if serve.Gate(d, n, s.h.ActionKind) == "" {
			if _, loaded := s.h.ActionKind(n); loaded {
				out = append(out, n)
			}
		}
	}
	return out
}

type actRequest struct {
	Action          string  `json:"action"`
	Pane            string  `json:"pane"`
	Slot            string  `json:"slot"`
	ExpectEpisodeMS *int64  `json:"expect_episode_ms"`
	Arg             *string `json:"arg"`
}

// act is one dispatch: the scope table first (403, nothing claimed), then
// the broker under a slot namespaced by the device, so a replay is
// answered from the ledger's receipt and one device never reads another's.
func (s *Server) act(w http.ResponseWriter, r *http.Request, d *device.Device) {
	var q actRequest
	if !readBody(w, r, &q) {
		return
	}
	if !actionRE.MatchString(q.Action) || !paneRE.MatchString(q.Pane) || !slotRE.MatchString(q.Slot) {
		fail(w, http.StatusBadRequest, "bad-request", `act needs "action", "pane" (%N) and "slot" (1-64 of A-Za-z0-9._:@-, fresh per tap)`)
		return
	}
	if why := serve.Gate(d, q.Action, s.h.ActionKind); why != "" {
		s.h.Log("device %s: %s on %s refused: %s", d.Name, q.Action, q.Pane, why)
		msg := "the scope table refuses " + q.Action + " to this device: " + why
		if scope, ok := serve.ScopeFor(q.Action); ok && !d.Has(scope) {
			msg = needMsg(d, scope)
		}
		fail(w, http.StatusForbidden, "scope-denied", msg)
		return
	}
	dsp := serve.Dispatch{Action: q.Action, Pane: q.Pane, Slot: "web:" + d.Name + ":" + q.Slot,
		ExpectEpisodeMS: q.ExpectEpisodeMS, Device: d.Name}
	// arg is a text action's line and any other action's option.
	if kind, _ := s.h.ActionKind(q.Action); kind == "text" {
		dsp.Text = q.Arg
	} else {
		dsp.Arg = q.Arg
	}
	s.fireMu.Lock()
	rc, err := s.h.Fire(r.Context(), dsp)
	s.fireMu.Unlock()
	if err != nil {
		s.h.Log("device %s: %s on %s: %v", d.Name, q.Action, q.Pane, err)
		if errors.As(err, new(*serve.UsageError)) {
			fail(w, http.StatusBadRequest, "bad-request", err.Error())
			return
		}
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	s.h.Log("device %s: %s on %s: %s", d.Name, q.Action, q.Pane, rc.Outcome)
	s.hub.stale()
	writeJSON(w, http.StatusOK, serve.Fields("schema", 1, "action", q.Action, "pane", q.Pane, "slot", q.Slot,
		"device", d.Name, "outcome", rc.Outcome, "exit_code", rc.ExitCode, "reason", rc.Reason, "cached", rc.Cached))
}

// bucket is the pairing rate limit: burst attempts at once, then one per
// every.
type bucket struct {
	mu     sync.Mutex
	tokens float64
	burst  float64
	every  time.Duration
	last   time.Time
	now    func() time.Time
}

const (
	pairBurst = 5
	pairEvery = 12 * time.Second
)

func newBucket(burst int, every time.Duration, now func() time.Time) *bucket {
	return &bucket{tokens: float64(burst), burst: float64(burst), every: every, last: now(), now: now}
}

func (b *bucket) take() (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.now()
	b.tokens = min(b.burst, b.tokens+float64(t.Sub(b.last))/float64(b.every))
	b.last = t
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) * float64(b.every)), false
	}
	b.tokens--
	return 0, true
}

// ctxDone reports whether ctx has ended.
func ctxDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}
