package act

import (
	"strings"
	"testing"
)

// TestSendGuard: the guard ANDs the lock and every term of the tuple, each
// a literal comparison whose value is escaped for the format parser.
func TestSendGuard(t *testing.T) {
	l := Lock{ExpiryMS: 20, Nonce: "n1", PID: 7, Name: "approve"}
	g := SendGuard(Tuple{State: "blocked", Detail: "permission", Since: 1700, Request: "0123abcd"}, l)
	want := "#{&&:#{==:#{@agent_action},20:n1:7:approve}," +
		"#{&&:#{==:#{@agent_state},blocked}," +
		"#{&&:#{==:#{@agent_detail},permission}," +
		"#{&&:#{==:#{@agent_since},1700}," +
		"#{==:#{@agent_permission_request},0123abcd}}}}}"
	if g != want {
		t.Errorf("guard\n got %s\nwant %s", g, want)
	}
	// No detail, no since, no request: each compares with the empty value
	// (an unset option expands to nothing).
	g = SendGuard(Tuple{State: "working"}, l)
	for _, term := range []string{"#{==:#{@agent_detail},}", "#{==:#{@agent_since},}", "#{==:#{@agent_permission_request},}"} {
		if !strings.Contains(g, term) {
			t.Errorf("guard %s lacks %s", g, term)
		}
	}
	if got := formatLiteral("a,b}c#d{e"); got != "a#,b#}c##d{e" {
		t.Errorf("formatLiteral: %q", got)
	}
}

func TestMovedOn(t *testing.T) {
	for in, want := range map[string]string{"blocked|question\n": "blocked/question", "idle|": "idle", "|": "no agent state", "": "no agent state"} {
		if got := MovedOn(in); got != want {
			t.Errorf("MovedOn(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBind: each binder refuses on its own mismatch with its own reason;
// unasked binders hold.
func TestBind(t *testing.T) {
	tg := Target{Pane: "%3", EpisodeMS: 500}
	ep, other := int64(500), int64(400)
	id, gone := "r1", "r0"
	for _, c := range []struct {
		ep     *int64
		req    *string
		have   string
		reason string
	}{
		{nil, nil, "", ""},
		{&ep, nil, "", ""},
		{&other, nil, "", ReasonEpisodeChanged},
		{nil, &id, "r1", ""},
		{nil, &gone, "r1", ReasonRequestGone},
		{nil, &id, "", ReasonRequestGone},
		{&other, &gone, "r1", ReasonEpisodeChanged},
	} {
		if v := Bind(c.ep, c.req, tg, c.have); v.Reason != c.reason || (v.Reason != "" && v.Why == "") {
			t.Errorf("Bind(%v, %v, have %q) = %+v, want %q", c.ep, c.req, c.have, v, c.reason)
		}
	}
}
