package integration

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// claudeQuestion is Claude Code's AskUserQuestion dialog (the shape of
// fixtures/claude/blocked-question-*, its colours dropped).
var claudeQuestion = screenOf("✳ Probe", "❯ ASKQ\n────────────────────────────────────────────────────────────────────────────────\n ☐ Colour \n\nWhich colour should the mock paint the probe?\n\n❯ 1. Red\n     Paint it red.\n  2. Green\n     Paint it green.\n  3. Blue\n     Paint it blue.\n  4. Type something.\n────────────────────────────────────────────────────────────────────────────────\n  5. Chat about this\n\nEnter to select · ↑/↓ to navigate · Esc to cancel\n")

// webFace is one `tma serve --http` the test started, on a free loopback
// port written into the env's config.
type webFace struct {
	e      *env
	base   string
	addr   string
	cmd    *exec.Cmd
	stderr *syncBuf
}

type syncBuf struct {
	mu chan struct{}
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.String()
}

// newWebEnv is an env whose config sets [serve.http] listen (plus extra
// config lines), with the web face started and answering.
func newWebEnv(t *testing.T, extra string) (*env, *webFace) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	e := newEnv(t, "[serve.http]\nlisten = \""+addr+"\"\n"+extra)
	return e, e.startWeb(addr, "http")
}

func (e *env) startWeb(addr, scheme string) *webFace {
	e.t.Helper()
	cmd := exec.Command("sh", filepath.Join(binDir, "tma"), "-L", e.s.Name, "serve", "--http")
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG_DIR=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
	w := &webFace{e: e, base: scheme + "://" + addr, addr: addr, cmd: cmd, stderr: &syncBuf{mu: make(chan struct{}, 1)}}
	cmd.Stderr = w.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(w.stderr.String(), "web face on "+w.base) {
		if time.Now().After(deadline) {
			e.t.Fatalf("tma serve --http did not start: %s", w.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return w
}

var pairURLRE = regexp.MustCompile(`(?m)^  (https?://\S+/pair#(\S+))$`)

// pairURL runs `tma device pair NAME --web` and returns the URL it printed.
func (w *webFace) pairURL(name string, extra ...string) (link, code string) {
	w.e.t.Helper()
	out := w.e.device(append([]string{"pair", name, "--web"}, extra...)...)
	m := pairURLRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "█") {
		w.e.t.Fatalf("pair --web printed no URL and QR code:\n%s", out)
	}
	return m[1], m[2]
}

type reply struct {
	status int
	hdr    http.Header
	raw    string
	doc    map[string]any
}

func (w *webFace) do(method, path, token, body string, hdr ...string) reply {
	w.e.t.Helper()
	req, err := http.NewRequest(method, w.base+path, strings.NewReader(body))
	if err != nil {
		w.e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		w.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := reply{status: res.StatusCode, hdr: res.Header, raw: string(b)}
	_ = json.Unmarshal(b, &r.doc)
	return r
}

// redeem pairs through the API with the code of a printed URL.
func (w *webFace) redeem(code string) string {
	w.e.t.Helper()
	r := w.do("POST", "/api/v1/pair", "", fmt.Sprintf(`{"code":%q}`, code))
	tok, _ := r.doc["token"].(string)
	if r.status != 200 || tok == "" {
		w.e.t.Fatalf("pair: %d %s", r.status, r.raw)
	}
	return tok
}

func TestWebAPIRules(t *testing.T) {
	e, w := newWebEnv(t, "hosts = [\"phone.tailnet.example\"]\n")
	e.s.StartAgent("claude", claudeIdle)

	// The page is public (it holds nothing); everything under /api/v1 but
	// pairing needs a token.
	if r := w.do("GET", "/", "", ""); r.status != 200 || !strings.Contains(r.raw, "<title>tma</title>") ||
		!strings.Contains(r.hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("page: %d %v", r.status, r.hdr)
	}
	for _, p := range []string{"/api/v1/agents", "/api/v1/events", "/api/v1/card?pane=%1", "/api/v1/device"} {
		if r := w.do("GET", p, "", ""); r.status != 401 || r.doc["error"] != "unauthorized" || r.hdr.Get("WWW-Authenticate") == "" {
			t.Errorf("%s without a token: %d %s", p, r.status, r.raw)
		}
		if r := w.do("GET", p, "not-a-token", ""); r.status != 401 {
			t.Errorf("%s with an unknown token: %d %s", p, r.status, r.raw)
		}
	}
	if r := w.do("POST", "/api/v1/act", "", `{"action":"approve","pane":"%1","slot":"a"}`); r.status != 401 {
		t.Errorf("act without a token: %d", r.status)
	}

	// Pairing: a wrong code, the printed one once, then never again.
	_, code := w.pairURL("phone")
	if r := w.do("POST", "/api/v1/pair", "", `{"code":"nope"}`); r.status != 401 || r.doc["error"] != "bad-code" {
		t.Errorf("a wrong code: %d %s", r.status, r.raw)
	}
	tok := w.redeem(code)
	if r := w.do("POST", "/api/v1/pair", "", fmt.Sprintf(`{"code":%q}`, code)); r.status != 401 {
		t.Errorf("a used code: %d %s", r.status, r.raw)
	}
	if out := e.device("list"); !strings.Contains(out, "phone\tweb:") || !strings.Contains(out, "read,act:answer,act:steer") {
		t.Errorf("device list: %s", out)
	}
	if r := w.do("GET", "/api/v1/agents", tok, ""); r.status != 200 || !strings.Contains(r.raw, `"agent":"claude"`) || strings.Contains(r.raw, `"title"`) {
		t.Errorf("agents: %d %s", r.status, r.raw)
	}

	// Host: the bound address, a loopback name on any port (ssh -L from
	// another port), a configured name; anything else is 421.
	for host, want := range map[string]int{w.addr: 200, "localhost:9": 200, "[::1]:7878": 200, "phone.tailnet.example": 200,
		"evil.example": 421, "evil.example:" + strings.Split(w.addr, ":")[1]: 421, "127.0.0.1.evil.example": 421} {
		if r := w.do("GET", "/api/v1/agents", tok, "", "Host", host); r.status != want {
			t.Errorf("Host %s: %d, want %d (%s)", host, r.status, want, r.raw)
		}
	}
	if r := w.do("GET", "/", "", "", "Host", "evil.example"); r.status != 421 {
		t.Errorf("the page for a rebinding Host: %d", r.status)
	}

	// A body over 64 KiB: 413, with a length and streamed without one.
	big := `{"action":"approve","pane":"%1","slot":"a","arg":"` + strings.Repeat("x", 70<<10) + `"}`
	if r := w.do("POST", "/api/v1/act", tok, big); r.status != 413 {
		t.Errorf("a big body: %d %s", r.status, r.raw)
	}
	req, _ := http.NewRequest("POST", w.base+"/api/v1/act", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+tok)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 413 {
		t.Errorf("a big chunked body: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	if r := w.do("POST", "/api/v1/act", tok, `{"action":"approve"}`); r.status != 400 {
		t.Errorf("an act without pane and slot: %d %s", r.status, r.raw)
	}
	if r := w.do("GET", "/api/v1/nothing", tok, ""); r.status != 404 {
		t.Errorf("an unknown route: %d", r.status)
	}

	// Scope denied: 403 with the reason, and nothing fired.
	_, tcode := w.pairURL("tablet", "--only")
	ttok := w.redeem(tcode)
	r := w.do("POST", "/api/v1/act", ttok, `{"action":"approve","pane":"%1","slot":"t1"}`)
	if r.status != 403 || r.doc["error"] != "scope-denied" || !strings.Contains(r.raw, "tma device grant tablet act:answer") {
		t.Errorf("a read-only approve: %d %s", r.status, r.raw)
	}
	// A grant takes effect on the next request: the scope table lets it
	// through to the broker, whose gate refuses an approve on an idle pane.
	e.device("grant", "tablet", "act:answer")
	if r := w.do("POST", "/api/v1/act", ttok, `{"action":"approve","pane":"%1","slot":"t2"}`); r.status != 200 || r.doc["outcome"] != "refused" || r.doc["reason"] != "gated" {
		t.Errorf("approve after the grant: %d %s", r.status, r.raw)
	}
	if r := w.do("POST", "/api/v1/act", tok, `{"action":"compact","pane":"%1","slot":"c1"}`); r.status != 403 || !strings.Contains(r.raw, "outside the remote action table") {
		t.Errorf("compact: %d %s", r.status, r.raw)
	}
	if out, _, _ := e.tma("receipts"); strings.Contains(out, ":t1") || strings.Contains(out, ":c1") {
		t.Errorf("a refused act reached the ledger: %s", out)
	}

	// Pairing is rate-limited: the bucket (5) is spent by now or soon.
	limited := false
	for range 6 {
		r := w.do("POST", "/api/v1/pair", "", `{"code":"guess"}`)
		if r.status == 429 {
			limited = r.hdr.Get("Retry-After") != ""
			break
		}
		if r.status != 401 {
			t.Fatalf("a guess: %d %s", r.status, r.raw)
		}
	}
	if !limited {
		t.Error("no 429 after 6 more pairing attempts")
	}

	// A revoke takes effect on the next request.
	if out := e.device("revoke", "phone"); !strings.Contains(out, "its token is refused") || strings.Contains(out, "authorized_keys") {
		t.Errorf("revoke of a web device says: %s", out)
	}
	if r := w.do("GET", "/api/v1/agents", tok, ""); r.status != 401 {
		t.Errorf("a revoked token: %d %s", r.status, r.raw)
	}
	if r := w.do("GET", "/api/v1/agents", ttok, ""); r.status != 200 {
		t.Errorf("the other device after the revoke: %d", r.status)
	}
}

// A non-loopback address without TLS is refused, naming the safe routes.
func TestWebRefusesAnOpenAddress(t *testing.T) {
	e := newEnv(t, "")
	_, errs, code := e.tma("serve", "--http", "0.0.0.0:7878")
	if code != 2 || !strings.Contains(errs, "ssh -L 7878:127.0.0.1:7878") || !strings.Contains(errs, "tailscale serve") || !strings.Contains(errs, "--tls-cert") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if _, errs, code := e.tma("serve", "--http", "--device", "SHA256:x"); code != 2 || !strings.Contains(errs, "--stdio's") {
		t.Errorf("--http --device: exit %d %s", code, errs)
	}
}

func (w *webFace) act(tok, body string) reply {
	w.e.t.Helper()
	r := w.do("POST", "/api/v1/act", tok, body)
	if r.status != 200 {
		w.e.t.Fatalf("act %s: %d %s", body, r.status, r.raw)
	}
	return r
}

func TestWebAnswers(t *testing.T) {
	e, w := newWebEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	q, qin := e.s.StartRecordingAgent("claude", claudeQuestion)
	e.expect(a.Pane, "blocked/permission attn")
	e.expect(q.Pane, "blocked/question attn")
	_, code := w.pairURL("phone")
	tok := w.redeem(code)
	_, tcode := w.pairURL("tablet", "--only")
	ttok := w.redeem(tcode)

	r := w.do("GET", "/api/v1/card?pane="+url.QueryEscape(a.Pane), tok, "")
	if r.status != 200 || r.doc["kind"] != "permission" || r.doc["question"] != "Do you want to proceed?" ||
		!strings.Contains(r.raw, `"actions":["approve","deny"]`) {
		t.Fatalf("card: %d %s", r.status, r.raw)
	}
	ep := int64(r.doc["episode_ms"].(float64))
	if r := w.do("GET", "/api/v1/card?pane=%25999", tok, ""); r.status != 404 {
		t.Errorf("card of no pane: %d", r.status)
	}
	if r := w.do("GET", "/api/v1/card?pane=1", tok, ""); r.status != 400 {
		t.Errorf("card of a bad pane: %d", r.status)
	}

	// A stale episode is refused and sends nothing.
	r = w.act(tok, fmt.Sprintf(`{"action":"approve","pane":%q,"slot":"old","expect_episode_ms":%d}`, a.Pane, ep-1))
	if r.doc["outcome"] != "refused" || r.doc["reason"] != "episode-changed" || r.doc["exit_code"] != 4.0 {
		t.Errorf("a stale approve: %s", r.raw)
	}
	e.nothingSent(in)

	// Approve: the keys exactly once; the same slot again is its receipt.
	body := fmt.Sprintf(`{"action":"approve","pane":%q,"slot":"tap-1","expect_episode_ms":%d}`, a.Pane, ep)
	r = w.act(tok, body)
	if r.doc["outcome"] != "sent" || r.doc["cached"] != false || r.doc["device"] != "phone" || r.doc["slot"] != "tap-1" {
		t.Fatalf("approve: %s", r.raw)
	}
	e.waitSent(in, "1")
	r = w.act(tok, body)
	if r.doc["outcome"] != "sent" || r.doc["cached"] != true {
		t.Errorf("the replayed approve: %s", r.raw)
	}
	time.Sleep(300 * time.Millisecond)
	if got := sent(t, in); got != "1" {
		t.Errorf("after the replay the pane received %q, want one 1", got)
	}
	// Another device's same slot is its own: it does not read phone's receipt.
	if out, _, _ := e.tma("receipts", "--json"); !strings.Contains(out, `"slot":"web:phone:tap-1"`) || !strings.Contains(out, `"device":"phone"`) {
		t.Errorf("ledger: %s", out)
	}

	// A question's option, typed with keys under the same checks.
	r = w.do("GET", "/api/v1/card?pane="+url.QueryEscape(q.Pane), tok, "")
	if r.doc["kind"] != "question" || !strings.Contains(r.raw, `"label":"Green"`) || !strings.Contains(r.raw, `"actions":["answer","dismiss"]`) {
		t.Fatalf("question card: %s", r.raw)
	}
	qep := int64(r.doc["episode_ms"].(float64))
	r = w.act(tok, fmt.Sprintf(`{"action":"answer","pane":%q,"slot":"q-1","expect_episode_ms":%d,"arg":"2"}`, q.Pane, qep))
	if r.doc["outcome"] != "sent" {
		t.Fatalf("answer: %s", r.raw)
	}
	e.waitSent(qin, "2")
	if r := w.do("POST", "/api/v1/act", tok, fmt.Sprintf(`{"action":"answer","pane":%q,"slot":"q-2","arg":"x"}`, q.Pane)); r.status != 400 || !strings.Contains(r.raw, "option") {
		t.Errorf("an answer with no option number: %d %s", r.status, r.raw)
	}

	// A text action takes its line in arg.
	idle, iin := e.s.StartRecordingAgent("claude", claudeIdle)
	e.expect(idle.Pane, "idle")
	r = w.do("GET", "/api/v1/card?pane="+url.QueryEscape(idle.Pane), tok, "")
	if r.doc["kind"] != "none" || !strings.Contains(r.raw, `"actions":["steer"]`) {
		t.Errorf("idle card: %s", r.raw)
	}
	r = w.act(tok, fmt.Sprintf(`{"action":"steer","pane":%q,"slot":"s-1","arg":"use the helper"}`, idle.Pane))
	if r.doc["outcome"] != "sent" {
		t.Errorf("steer: %s", r.raw)
	}
	e.waitSent(iin, "use the helper\r")

	// The read-only device: the card without the dialog's words or actions.
	r = w.do("GET", "/api/v1/card?pane="+url.QueryEscape(q.Pane), ttok, "")
	if r.status != 200 || r.doc["withheld"] != true || r.doc["question"] != nil || strings.Contains(r.raw, "Green") ||
		strings.Contains(r.raw, "colour") || !strings.Contains(r.raw, `"actions":[]`) {
		t.Errorf("read-only card: %s", r.raw)
	}
	if got := sent(t, qin); got != "2" {
		t.Errorf("the question pane received %q", got)
	}
}

// sse reads one event stream.
type sse struct {
	res    *http.Response
	events chan [2]string
}

func (w *webFace) stream(tok string) *sse {
	w.e.t.Helper()
	req, _ := http.NewRequest("GET", w.base+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		w.e.t.Fatalf("events: %v %v", res, err)
	}
	s := &sse{res: res, events: make(chan [2]string, 64)}
	w.e.t.Cleanup(func() { res.Body.Close() })
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		ev := ""
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "event: "):
				ev = l[7:]
			case strings.HasPrefix(l, "data: "):
				s.events <- [2]string{ev, l[6:]}
			}
		}
	}()
	return s
}

// next is the next event of kind, or "" when the stream ended.
func (s *sse) next(t *testing.T, kind string, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return ""
			}
			if ev[0] == kind {
				return ev[1]
			}
		case <-deadline:
			t.Fatalf("no %s event in %s", kind, within)
		}
	}
}

func TestWebEventsAndRevoke(t *testing.T) {
	e, w := newWebEnv(t, "")
	a := e.s.StartAgent("claude", claudeWorking)
	e.expect(a.Pane, "working")
	_, code := w.pairURL("phone")
	tok := w.redeem(code)
	s := w.stream(tok)
	if d := s.next(t, "hello", 5*time.Second); !strings.Contains(d, `"device":"phone"`) {
		t.Fatalf("hello: %s", d)
	}
	// The stream's silent baseline is followed by ready; then move the agent.
	if d := s.next(t, "ready", 5*time.Second); !strings.Contains(d, `"at_ms":`) {
		t.Fatalf("ready: %s", d)
	}
	start := time.Now()
	a.Paint(claudeBlocked)
	d := s.next(t, "transition", 10*time.Second)
	var ev map[string]any
	_ = json.Unmarshal([]byte(d), &ev)
	if ev["pane"] != a.Pane || ev["from"] != "working" || ev["to"] != "blocked" || ev["detail"] != "permission" || ev["schema"] != 1.0 {
		t.Errorf("transition: %s", d)
	}
	t.Logf("the event arrived %s after the paint", time.Since(start).Round(time.Millisecond))

	// Revoked mid-stream: one revoked event, then the stream closes.
	e.device("revoke", "phone")
	if d := s.next(t, "revoked", 5*time.Second); !strings.Contains(d, "revoked") {
		t.Errorf("revoked: %q", d)
	}
	select {
	case _, ok := <-s.events:
		for ok {
			_, ok = <-s.events
		}
	case <-time.After(5 * time.Second):
		t.Error("the stream stayed open after the revoke")
	}
	if r := w.do("GET", "/api/v1/events", tok, ""); r.status != 401 {
		t.Errorf("a revoked stream reopened: %d", r.status)
	}
	_ = strconv.Itoa
}

// [serve.http] enabled = true: the daemon hosts the web face and stops it
// when it ends; public_url puts the pane's card URL into the notify payload.
func TestWebHostedByTheDaemonWithTheCardURL(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	e := newNotifyEnv(t, "[serve.http]\nenabled = true\nlisten = \""+addr+"\"\npublic_url = \"https://box.tail1234.ts.net\"\n")
	a := e.startPainted(claudeBlocked)
	e.ensure()
	ps := e.payloads(1, 10*time.Second)
	if len(ps) != 1 || ps[0]["url"] != "https://box.tail1234.ts.net/#pane="+url.QueryEscape(a.Pane) {
		t.Fatalf("payloads %v", ps)
	}
	w := &webFace{e: e.env, base: "http://" + addr, addr: addr}
	up := func() bool {
		res, err := http.Get(w.base + "/")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	}
	for deadline := time.Now().Add(15 * time.Second); !up(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon hosts no web face on %s; its log:\n%s", addr, e.daemonLog())
		}
	}
	// The public name is a Host the server answers to; the pairing URL is
	// made from it.
	if r := w.do("GET", "/", "", "", "Host", "box.tail1234.ts.net"); r.status != 200 {
		t.Errorf("Host of public_url: %d", r.status)
	}
	if out := e.device("pair", "phone", "--web"); !strings.Contains(out, "https://box.tail1234.ts.net/pair#") {
		t.Errorf("pair --web with public_url: %s", out)
	}
	e.stopDaemon()
	e.s.WaitFor(func() bool { return !up() }, "the web face gone with the daemon")
	if log := e.daemonLog(); !strings.Contains(log, "web face on http://"+addr) {
		t.Errorf("the daemon's log says nothing of the web face:\n%s", log)
	}
}

// With a certificate the web face serves TLS (and only TLS), and the
// pairing URL is https.
func TestWebServesTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tma test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_ = os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	e := newEnv(t, fmt.Sprintf("[serve.http]\nlisten = %q\ntls_cert = %q\ntls_key = %q\n", addr, certPath, keyPath))
	w := e.startWeb(addr, "https")
	link, code := w.pairURL("phone")
	if !strings.HasPrefix(link, "https://"+addr+"/pair#") {
		t.Errorf("pair URL %s", link)
	}
	pool := x509.NewCertPool()
	cert, _ := x509.ParseCertificate(der)
	pool.AddCert(cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	res, err := client.Post(w.base+"/api/v1/pair", "application/json", strings.NewReader(fmt.Sprintf(`{"code":%q}`, code)))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("pair over TLS: %v %v", res, err)
	}
	res.Body.Close()
	if res, err := http.Get("http://" + addr + "/"); err == nil {
		if res.StatusCode == 200 {
			t.Error("the TLS server answered plain HTTP with the page")
		}
		res.Body.Close()
	}
}
