package doctor

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/hook"
	"github.com/tmaproject/tma/lib/record"
)

// TestAPIProblemCounts: the api: line counts an OpenCode pane's pending
// question (dismiss declines it over the lane) beside its pending
// permission, by the stamped id or by the blocked detail alone; a pane
// waiting on neither, a setup dialog and an agent with no lane get none.
func TestAPIProblemCounts(t *testing.T) {
	cfg := config.Default()
	pane := func(agent string, opts map[string]string) *record.Pane {
		return &record.Pane{Pane: "%5", Agent: agent, Opts: opts}
	}
	blocked := func(detail string) record.Prior { return record.Prior{State: "blocked", Detail: detail} }
	cases := []struct {
		name  string
		p     *record.Pane
		prior record.Prior
		want  string // "" for no line
	}{
		{"question id", pane("opencode", map[string]string{hook.QuestionOption: "que_1"}), record.Prior{},
			"a pending question (que_1) and no server endpoint: dismiss sends keys (opencode serves its API only with --port or --hostname; or set [api.opencode] api_base)"},
		{"question detail", pane("opencode", map[string]string{}), blocked("question"),
			"a pending question and no server endpoint: dismiss sends keys"},
		{"permission id", pane("opencode", map[string]string{hook.RequestOption: "per_1"}), record.Prior{},
			"a pending permission (per_1) and no server endpoint: approve and deny send keys"},
		{"permission detail", pane("opencode", map[string]string{}), blocked("permission"),
			"a pending permission and no server endpoint: approve and deny send keys"},
		{"setup dialog", pane("opencode", map[string]string{}), blocked("setup"), ""},
		{"idle", pane("opencode", map[string]string{}), record.Prior{State: "idle"}, ""},
		{"no lane", pane("pi", map[string]string{}), blocked("question"), ""},
	}
	for _, c := range cases {
		got := APIProblem(cfg, c.p, c.prior)
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: api line %q, want %q", c.name, got, c.want)
		}
	}
}

// TestAPIProblemEndpoint: a pending question on a pane whose server is
// gone reads as one dismiss cannot reach; with the server answering there
// is no line.
func TestAPIProblemEndpoint(t *testing.T) {
	cfg := config.Default()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("[]")) }))
	defer srv.Close()
	live := &record.Pane{Pane: "%5", Agent: "opencode", Opts: map[string]string{hook.QuestionOption: "que_1", hook.EndpointOption: srv.URL}}
	if got := APIProblem(cfg, live, record.Prior{}); got != "" {
		t.Errorf("a live server: api line %q, want none", got)
	}
	// A port that was listening and is closed refuses the connection.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	dead := &record.Pane{Pane: "%5", Agent: "opencode", Opts: map[string]string{hook.QuestionOption: "que_1", hook.EndpointOption: gone}}
	got := APIProblem(cfg, dead, record.Prior{State: "blocked", Detail: "question"})
	if !strings.HasPrefix(got, "a pending question (que_1), and "+gone+" does not answer (") || !strings.HasSuffix(got, "): dismiss fails until it does") {
		t.Errorf("a closed port: api line %q", got)
	}
}
