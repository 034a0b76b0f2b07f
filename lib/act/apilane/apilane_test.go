package apilane

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// standIn mimics the routes of OpenCode 1.18.33's server that the lane
// uses, as read from its SDK (@opencode-ai/sdk v2: permission.list,
// permission.reply, question.list, question.reject) and its handlers: a
// reply to an id it does not hold is 404 PermissionNotFoundError, unless
// lax, which answers 200 as some releases do (the service returns early).
type standIn struct {
	mu        sync.Mutex
	perms     map[string]bool
	questions map[string]bool
	replies   []string // "<id> <reply>" as received
	lax       bool
	noList    bool
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := func(m map[string]bool) {
		if s.noList {
			http.NotFound(w, r)
			return
		}
		out := []map[string]any{}
		for id := range m {
			out = append(out, map[string]any{"id": id, "sessionID": "ses_1", "permission": "bash", "patterns": []string{"touch probe.txt"}})
		}
		_ = json.NewEncoder(w).Encode(out)
	}
	notFound := func(kind, id string) {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"name": kind + "NotFoundError", "data": map[string]string{"requestID": id, "message": kind + " request not found: " + id}})
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/permission":
		list(s.perms)
	case r.Method == http.MethodGet && r.URL.Path == "/question":
		list(s.questions)
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "permission" && parts[2] == "reply":
		var body struct {
			Reply string `json:"reply"`
		}
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil || (body.Reply != "once" && body.Reply != "always" && body.Reply != "reject") {
			http.Error(w, `{"name":"BadRequest"}`, http.StatusBadRequest)
			return
		}
		if !s.perms[parts[1]] && !s.lax {
			notFound("Permission", parts[1])
			return
		}
		delete(s.perms, parts[1])
		s.replies = append(s.replies, parts[1]+" "+body.Reply)
		_, _ = w.Write([]byte("true"))
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "question" && parts[2] == "reject":
		if !s.questions[parts[1]] && !s.lax {
			notFound("Question", parts[1])
			return
		}
		delete(s.questions, parts[1])
		s.replies = append(s.replies, parts[1]+" reject-question")
		_, _ = w.Write([]byte("true"))
	default:
		http.NotFound(w, r)
	}
}

func serve(t *testing.T, s *standIn) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestReply(t *testing.T) {
	s := &standIn{perms: map[string]bool{"per_1": true, "per_2": true}, questions: map[string]bool{"que_1": true}}
	base := serve(t, s)
	c := &http.Client{}
	ctx := context.Background()
	if r := Do(ctx, c, Answer{Base: base, Op: OpPermissionReply, Reply: "once", ID: "per_1"}); r.Outcome != Replied || r.Status != 200 {
		t.Fatalf("once: %+v", r)
	}
	if r := Do(ctx, c, Answer{Base: base + "/", Op: OpPermissionReply, Reply: "reject", ID: "per_2"}); r.Outcome != Replied {
		t.Fatalf("reject: %+v", r)
	}
	if r := Do(ctx, c, Answer{Base: base, Op: OpQuestionReject, ID: "que_1"}); r.Outcome != Replied {
		t.Fatalf("question reject: %+v", r)
	}
	if got := strings.Join(s.replies, ","); got != "per_1 once,per_2 reject,que_1 reject-question" {
		t.Errorf("the server got %s", got)
	}
	// Answered already: not pending, so gone, and nothing is posted.
	if r := Do(ctx, c, Answer{Base: base, Op: OpPermissionReply, Reply: "once", ID: "per_1"}); r.Outcome != Gone || r.Status != 0 {
		t.Errorf("answered twice: %+v", r)
	}
	if len(s.replies) != 3 {
		t.Errorf("a gone request was posted: %v", s.replies)
	}
}

// TestGone: the 404 itself, where the list cannot tell (a server without
// the list route), and the list where the reply would not (a lax server).
func TestGone(t *testing.T) {
	c := &http.Client{}
	ctx := context.Background()
	base := serve(t, &standIn{perms: map[string]bool{}, noList: true})
	if r := Do(ctx, c, Answer{Base: base, Op: OpPermissionReply, Reply: "once", ID: "per_x"}); r.Outcome != Gone || r.Status != 404 || !strings.Contains(r.Why, "404") {
		t.Errorf("404: %+v", r)
	}
	lax := &standIn{perms: map[string]bool{}, lax: true}
	base = serve(t, lax)
	if r := Do(ctx, c, Answer{Base: base, Op: OpPermissionReply, Reply: "once", ID: "per_x"}); r.Outcome != Gone || len(lax.replies) != 0 {
		t.Errorf("a lax server's unknown id: %+v, posted %v", r, lax.replies)
	}
}

func TestFailures(t *testing.T) {
	c := &http.Client{}
	ctx := context.Background()
	// Nothing listens.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	if r := Do(ctx, c, Answer{Base: dead, Op: OpPermissionReply, Reply: "once", ID: "per_1"}); r.Outcome != Failed || !strings.Contains(r.Why, "does not answer") {
		t.Errorf("unreachable: %+v", r)
	}
	if err := Probe(ctx, c, dead, time.Second); err == nil {
		t.Errorf("probe of nothing answered")
	}
	// A server that errs.
	boom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			http.Error(w, "Internal\nError", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`[{"id":"per_1"}]`))
	}))
	defer boom.Close()
	if r := Do(ctx, c, Answer{Base: boom.URL, Op: OpPermissionReply, Reply: "once", ID: "per_1"}); r.Outcome != Failed || r.Status != 500 || !strings.Contains(r.Why, "500 Internal Error") {
		t.Errorf("500: %+v", r)
	}
	if err := Probe(ctx, c, boom.URL, time.Second); err != nil {
		t.Errorf("probe of a live server: %v", err)
	}
	// A base that is not http(s) never dials.
	if r := Do(ctx, c, Answer{Base: "ftp://127.0.0.1:1", Op: OpPermissionReply, Reply: "once", ID: "x"}); r.Outcome != Failed {
		t.Errorf("bad base: %+v", r)
	}
}

// TestUnsent: a failure says whether the answer provably went nowhere
// (issue 27 item 23: a --slot dispatch whose connect was refused recorded
// fired-unknown): a refused connect, a pending list that cannot be read
// (the answer is never posted) and a base that is no URL are unsent; a
// post the server read, whatever it answered or however it hung up, is not.
func TestUnsent(t *testing.T) {
	c := &http.Client{}
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	ans := func(base string) Answer { return Answer{Base: base, Op: OpPermissionReply, Reply: "once", ID: "per_1"} }
	if r := Do(ctx, c, ans(dead)); r.Outcome != Failed || !r.Unsent {
		t.Errorf("refused connect: %+v", r)
	}
	if r := Do(ctx, c, ans("ftp://127.0.0.1:1")); r.Outcome != Failed || !r.Unsent {
		t.Errorf("bad base: %+v", r)
	}
	// The post is read, then the connection dropped with no answer.
	var posted sync.WaitGroup
	posted.Add(1)
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posted.Done()
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
			return
		}
		_, _ = w.Write([]byte(`[{"id":"per_1"}]`))
	}))
	defer hangup.Close()
	if r := Do(ctx, c, ans(hangup.URL)); r.Outcome != Failed || r.Unsent {
		t.Errorf("a post the server read, then hung up on: %+v", r)
	}
	posted.Wait()
	boom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`[{"id":"per_1"}]`))
	}))
	defer boom.Close()
	if r := Do(ctx, c, ans(boom.URL)); r.Outcome != Failed || r.Unsent {
		t.Errorf("500: %+v", r)
	}
}

func TestDescribe(t *testing.T) {
	a := Answer{Base: "http://127.0.0.1:4096/", Op: OpPermissionReply, Reply: "once", ID: "per_1"}
	if got := a.Describe(); got != `POST http://127.0.0.1:4096/permission/per_1/reply {"reply":"once"}` {
		t.Errorf("%s", got)
	}
	if got := (Answer{Base: "http://127.0.0.1:4096", Op: OpQuestionReject, ID: "que/../1"}).Describe(); got != "POST http://127.0.0.1:4096/question/que%2F..%2F1/reject" {
		t.Errorf("an id is one path segment: %s", got)
	}
}
