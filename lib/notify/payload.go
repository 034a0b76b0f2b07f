package notify

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// Triggers: the two state triggers of [notify] on, and the two that ride
// their own markers.
const (
	Blocked     = "blocked"
	Done        = "done"
	ContextHigh = "context_high"
	Stall       = "stall"
)

// Schema is the notification payload's schema: 2 since the title left it
// by default.
const Schema = 2

// Fired is what the producer that won an episode's marker read back in the
// same tmux call: everything a payload and the sinks need.
type Fired struct {
	Trigger   string
	Pane      string
	Agent     string
	State     string // the pane's @agent_state
	Detail    string
	Session   string // the agent's own session id (@agent_session)
	Locator   string // session:window.pane
	Title     string
	CWD       string
	TTY       string
	SinceMS   int64 // @agent_since
	TurnAtMS  int64 // @agent_turn_at
	MuteUntil int64 // @agent_mute_until
	Context   *int64
	Clients   []string // every attached client
}

// Muted reports whether the pane's mute covers now.
func (f *Fired) Muted(nowMS int64) bool { return f.MuteUntil > nowMS }

// Payload is the notification payload (the manual's key set, in order).
type Payload struct {
	Agent     string
	Pane      string
	State     string
	Detail    string
	Session   string
	Locator   string
	Title     *string // only with include_title
	Repo      string
	Branch    string
	SinceMS   int64 // how long the pane has been in the state
	EpisodeMS int64 // when the episode began (epoch ms): feed it to wait --since
	Context   *int64
	// URL is the pane's card on the web face, set only with [serve.http]
	// public_url: the address a notification's tap opens.
	URL string
}

// CardURL is pane's card on the web face reached at publicURL: the page,
// with the pane in its fragment (query-escaped, so %12 stays %12 through
// the page's URLSearchParams). The fragment never reaches a server or a
// proxy's log; the page reads it and scrolls to that card.
func CardURL(publicURL, pane string) string {
	if publicURL == "" {
		return ""
	}
	return strings.TrimRight(publicURL, "/") + "/#pane=" + url.QueryEscape(pane)
}

// Build is the one payload builder: the daemon's fire and the hook's
// from_event fire both come through here, so one transition yields one
// object either way. repo and branch are the pane's git labels.
func Build(f *Fired, nowMS int64, includeTitle bool, repo, branch string) *Payload {
	state := f.Trigger
	if state == "" {
		state = f.State
	}
	p := &Payload{Agent: f.Agent, Pane: f.Pane, State: state, Detail: f.Detail, Session: f.Session,
		Locator: f.Locator, Repo: repo, Branch: branch, Context: f.Context}
	if includeTitle {
		t := f.Title
		p.Title = &t
	}
	if f.SinceMS > 0 && nowMS > f.SinceMS {
		p.SinceMS = nowMS - f.SinceMS
	}
	p.EpisodeMS = max(f.SinceMS, f.TurnAtMS)
	return p
}

// kv is one ordered key: encoding/json sorts map keys and a struct cannot
// leave title out only sometimes, so the payload is written by hand.
type kv struct {
	k string
	v any
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (p *Payload) pairs() []kv {
	out := []kv{{"schema", Schema}, {"agent", p.Agent}, {"pane", p.Pane}, {"state", p.State},
		{"detail", nullable(p.Detail)}, {"session", nullable(p.Session)}, {"locator", p.Locator}}
	if p.Title != nil {
		out = append(out, kv{"title", *p.Title})
	}
	var ctx any
	if p.Context != nil {
		ctx = *p.Context
	}
	out = append(out, kv{"repo", nullable(p.Repo)}, kv{"branch", nullable(p.Branch)},
		kv{"since_ms", p.SinceMS}, kv{"episode_ms", p.EpisodeMS}, kv{"context_pct", ctx})
	if p.URL != "" {
		out = append(out, kv{"url", p.URL})
	}
	return out
}

func encode(pairs []kv) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			v = []byte("null")
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// JSON is the payload a command reads on stdin.
func (p *Payload) JSON() []byte { return encode(p.pairs()) }

// LogLine is the payload with at (the fire time) right after schema, as the
// notify log holds it.
func (p *Payload) LogLine(atMS int64) []byte {
	pairs := p.pairs()
	withAt := append([]kv{pairs[0], {"at", atMS}}, pairs[1:]...)
	return append(encode(withAt), '\n')
}

// Env is the payload as TMA_* variables: a value with nothing to report is
// left unset, never set empty.
func (p *Payload) Env() []string {
	env := []string{"TMA_AGENT=" + p.Agent, "TMA_PANE=" + p.Pane, "TMA_STATE=" + p.State,
		"TMA_LOCATOR=" + p.Locator, "TMA_SINCE_MS=" + strconv.FormatInt(p.SinceMS, 10),
		"TMA_EPISODE_MS=" + strconv.FormatInt(p.EpisodeMS, 10)}
	opt := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	if p.Title != nil {
		opt("TMA_TITLE", *p.Title)
	}
	opt("TMA_DETAIL", p.Detail)
	opt("TMA_SESSION", p.Session)
	opt("TMA_REPO", p.Repo)
	opt("TMA_BRANCH", p.Branch)
	if p.Context != nil {
		opt("TMA_CONTEXT_PCT", strconv.FormatInt(*p.Context, 10))
	}
	opt("TMA_URL", p.URL)
	return env
}

// EnvNames are every variable Env may set; a command's environment is
// cleared of them first so an inherited one never leaks into a fire.
var EnvNames = []string{"TMA_AGENT", "TMA_PANE", "TMA_STATE", "TMA_LOCATOR", "TMA_SINCE_MS",
	"TMA_EPISODE_MS", "TMA_TITLE", "TMA_DETAIL", "TMA_SESSION", "TMA_REPO", "TMA_BRANCH", "TMA_CONTEXT_PCT", "TMA_URL"}
