package apilane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act"
)

// The operations, as an [api] arm names them (lib/act).
const (
	OpPermissionReply = act.OpPermissionReply
	OpQuestionReject  = act.OpQuestionReject
)

// Timeout bounds a whole answer (the check and the reply): the server is on
// this host, so anything slower is a server that is not answering.
const Timeout = 3 * time.Second

// Outcomes of one answer.
const (
	Replied = "replied" // the server took it (2xx)
	Gone    = "gone"    // the server does not have the request (404, or not pending)
	Failed  = "failed"  // unreachable, or an answer other than 2xx/404
)

// Answer is one request to answer.
type Answer struct {
	Base  string // the server's base URL
	Op    string
	Reply string // permission-reply only
	ID    string // the request's own id (per_…, que_…)
}

// Result is what the server said.
type Result struct {
	Outcome string
	Status  int    // the reply's HTTP status, 0 when none came
	Why     string // for a person: what was asked and what came back
	// Unsent: a Failed answer that provably reached nothing: the base is
	// not a URL, the pending list could not be read (the answer is never
	// posted then), or the post's connection was never made (refused).
	Unsent bool
}

// Path is the route an answer posts to (OpenCode 1.18.33's server:
// POST /permission/{id}/reply {"reply":…}, POST /question/{id}/reject).
func (a Answer) Path() string {
	id := url.PathEscape(a.ID)
	if a.Op == OpQuestionReject {
		return "/question/" + id + "/reject"
	}
	return "/permission/" + id + "/reply"
}

// listPath is the route that lists the pending requests of the answer's kind.
func (a Answer) listPath() string {
	if a.Op == OpQuestionReject {
		return "/question"
	}
	return "/permission"
}

// Body is what an answer posts ("" for none).
func (a Answer) Body() string {
	if a.Op == OpQuestionReject {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"reply": a.Reply})
	return string(b)
}

// Describe is the answer as a dry run names it.
func (a Answer) Describe() string {
	s := "POST " + strings.TrimRight(a.Base, "/") + a.Path()
	if b := a.Body(); b != "" {
		s += " " + b
	}
	return s
}

// CheckBase refuses a base URL that is not http(s) with a host.
func CheckBase(base string) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an http(s) base URL", base)
	}
	return nil
}

// Do answers a: first the list of pending requests (a server that replies
// 200 to an id it no longer holds, as some OpenCode releases do, would
// otherwise read as answered), then the answer itself. A list that cannot
// be read (another status, not JSON) is not a verdict: the answer goes on
// and its own status decides.
func Do(ctx context.Context, c *http.Client, a Answer) Result {
	if err := CheckBase(a.Base); err != nil {
		return Result{Outcome: Failed, Why: err.Error(), Unsent: true}
	}
	base := strings.TrimRight(a.Base, "/")
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	pending, err := listed(ctx, c, base+a.listPath(), a.ID)
	if err != nil {
		return Result{Outcome: Failed, Why: fmt.Sprintf("%s does not answer: %v", a.Base, err), Unsent: true}
	}
	if pending == no {
		return Result{Outcome: Gone, Why: fmt.Sprintf("%s holds no pending request %s", a.Base, a.ID)}
	}
	var body io.Reader
	if b := a.Body(); b != "" {
		body = strings.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+a.Path(), body)
	if err != nil {
		return Result{Outcome: Failed, Why: err.Error(), Unsent: true}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return Result{Outcome: Failed, Why: fmt.Sprintf("%s does not answer: %v", a.Base, unwrap(err)), Unsent: dialFailed(err)}
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	r := Result{Status: resp.StatusCode}
	switch {
	case resp.StatusCode/100 == 2:
		r.Outcome, r.Why = Replied, fmt.Sprintf("%s: %d", a.Describe(), resp.StatusCode)
	case resp.StatusCode == http.StatusNotFound:
		r.Outcome, r.Why = Gone, fmt.Sprintf("%s: 404 (the request was answered or withdrawn)", a.Describe())
	default:
		r.Outcome, r.Why = Failed, fmt.Sprintf("%s: %d %s", a.Describe(), resp.StatusCode, oneLine(msg))
	}
	return r
}

type tri int

const (
	unknown tri = iota
	yes
	no
)

// listed reports whether the list at u names id: yes, no, or unknown when
// the list is not one (a route this server lacks, a body that is not a
// JSON array of objects with an id). err is a server that cannot be
// reached at all.
func listed(ctx context.Context, c *http.Client, u, id string) (tri, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return unknown, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return unknown, unwrap(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return unknown, nil
	}
	var items []struct {
		ID *string `json:"id"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&items) != nil {
		return unknown, nil
	}
	for _, it := range items {
		if it.ID == nil {
			return unknown, nil
		}
		if *it.ID == id {
			return yes, nil
		}
	}
	return no, nil
}

// Probe reports whether a server answers at base at all (any HTTP status):
// what doctor asks of a pane's endpoint.
func Probe(ctx context.Context, c *http.Client, base string, timeout time.Duration) error {
	if err := CheckBase(base); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/permission", nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return unwrap(err)
	}
	resp.Body.Close()
	return nil
}

// unwrap keeps the part of a transport error a person reads (connection
// refused, a deadline) without Go's request prefix.
// dialFailed reports an error of a connection that was never made (a
// refused or unreachable dial): the request it carried went nowhere.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func unwrap(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(bytes.ToValidUTF8(b, nil))), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}
