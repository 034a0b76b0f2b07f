package notify

import (
	"context"
	"os"
	"strconv"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/record"
)

// Settings is what a firer knows of its world: the config and the
// environment that may override it.
type Settings struct {
	Config *config.Config
	Env    config.Env
	Getenv func(string) string
	Home   string
}

// Execer runs tmux command lines (a lib/tmux client).
type Execer interface {
	Exec(ctx context.Context, lines []string) (string, error)
}

// Labeler gives a directory's git labels.
type Labeler func(dir string) (repo, branch string)

// Outcome is what one fire did, sink by sink, for logs and tests.
type Outcome struct {
	Muted   bool
	Shown   int    // clients shown the message
	TTY     bool   // bell/OSC bytes written
	Command string // the command handed to the supervisor, "" for none
	Errors  []error
}

// Fire delivers one won episode; FireAll says how.
func Fire(ctx context.Context, s Settings, ex Execer, labels Labeler, f *Fired, nowMS int64) Outcome {
	return FireAll(ctx, s, ex, labels, []*Fired{f}, nowMS)[0]
}

// FireAll delivers the episodes one producer's tmux call won, each on every
// configured sink: the bell and OSC bytes on the pane's tty, the message on
// every attached client, the command (in the background, under its bound),
// the log line. A muted pane gets nothing (its marker is already written,
// so the episode stays silenced after the mute ends).
//
// The order is the point: while a client shows a message, tmux freezes its
// terminal and drops every passthrough sequence a pane prints (3.3 to 3.5
// always; later releases too unless the message asked otherwise), so every
// fire's bytes are written before the first message, and the messages go
// in one tmux call after them. A message shown by an earlier fire, less
// than display-time ago, still drops them (docs/notify.md).
func FireAll(ctx context.Context, s Settings, ex Execer, labels Labeler, fs []*Fired, nowMS int64) []Outcome {
	out := make([]Outcome, len(fs))
	n := s.Config.Notify
	var live []int
	for i, f := range fs {
		if f.Muted(nowMS) {
			out[i].Muted = true
			continue
		}
		live = append(live, i)
		if b := TTYBytes(n.Bell, n.OSC, n.OSC777, f.Agent, f.Trigger); b != "" {
			if err := WriteTTY(f.TTY, b); err != nil {
				out[i].Errors = append(out[i].Errors, err)
			} else {
				out[i].TTY = true
			}
		}
	}
	var lines []string
	shown := map[int]int{}
	for _, i := range live {
		l := DisplayLines(fs[i].Clients, Message(fs[i], fs[i].Trigger))
		shown[i] = len(l)
		lines = append(lines, l...)
	}
	if len(lines) > 0 && ex != nil {
		_, err := ex.Exec(ctx, lines)
		for _, i := range live {
			switch {
			case shown[i] == 0:
			case err != nil:
				out[i].Errors = append(out[i].Errors, err)
			default:
				out[i].Shown = shown[i]
			}
		}
	}
	for _, i := range live {
		f := fs[i]
		var repo, branch string
		if labels != nil && f.CWD != "" {
			repo, branch = labels(f.CWD)
		}
		p := Build(f, nowMS, n.IncludeTitle, repo, branch)
		p.URL = CardURL(s.Config.Serve.HTTP.PublicURL, f.Pane)
		if cmd := s.Config.NotifyCommand(f.Trigger, s.Env); cmd != "" {
			cmd = config.ExpandHome(cmd, s.Home)
			if err := Start(s.Getenv, f.Trigger, cmd, p.JSON(), p.Env(), nowMS); err != nil {
				out[i].Errors = append(out[i].Errors, err)
			} else {
				out[i].Command = cmd
			}
		}
		// A log that cannot be written is skipped: a fire never fails on it.
		_ = AppendLog(s.Config.NotifyLog(s.Home), p.LogLine(nowMS))
	}
	return out
}

// ArmsFor are the marker lines a committing cycle adds after its stamp
// lines, for the panes whose episode may still be unnotified: the fold's
// verdict says the pane is (or stays) in a firing state, and the listed
// marker is older than the episode. tmux re-checks every condition at
// write time, so a stale list costs nothing but a line that does nothing;
// a pane whose marker is current adds no line, so a warm cycle stays
// write-free. daemon adds the triggers only a resident process checks;
// covered tells the agents whose manifest declares a context gauge, the
// only ones context_high fires for.
func ArmsFor(cfg *config.Config, panes []*record.Pane, nowMS int64, daemon bool, covered func(agent string) bool) (arms []Arm, rearm []string) {
	for _, p := range panes {
		v := p.Verdict
		if v == nil || p.Agent == "" || v.State == "" || v.Action == record.ActClear || v.Action == record.ActNone {
			continue
		}
		prior := record.ParsePrior(p.Opts)
		since := prior.Since
		if v.Action == record.ActPublish && (v.EpisodeReset || prior.State != v.State) {
			since = v.Since
		}
		attention := prior.Attention
		if v.SetAttention {
			attention = true
		} else if v.ClearAttn {
			attention = false
		}
		unmarked := func(marker string) bool { return optMS(p.Opts[marker]) < since }
		switch {
		case v.State == "blocked" && cfg.NotifyFires(Blocked) && unmarked(MarkerState):
			arms = append(arms, Arm{Trigger: Blocked, Pane: p.Pane, NowMS: nowMS})
		case v.State == "idle" && attention && cfg.NotifyFires(Done) && unmarked(MarkerState):
			arms = append(arms, Arm{Trigger: Done, Pane: p.Pane, NowMS: nowMS})
		}
		if !daemon {
			continue
		}
		if st := cfg.Notify.Stall; st != nil && st.ThresholdS > 0 && v.State == "working" &&
			since > 0 && nowMS-since > int64(st.ThresholdS)*1000 && unmarked(MarkerStall) {
			arms = append(arms, Arm{Trigger: Stall, Pane: p.Pane, NowMS: nowMS, Threshold: int64(st.ThresholdS)})
		}
		if ch := cfg.Notify.ContextHigh; ch != nil && ch.Threshold > 0 && covered != nil && covered(p.Agent) {
			pct, ok := p.Opts["@agent_context_pct"]
			marked := p.Opts[MarkerContext] != ""
			if v, err := strconv.ParseInt(pct, 10, 64); ok && err == nil {
				switch {
				case !marked && v >= int64(ch.Threshold):
					arms = append(arms, Arm{Trigger: ContextHigh, Pane: p.Pane, Agent: p.Agent, NowMS: nowMS, Threshold: int64(ch.Threshold)})
				case marked && v < int64(ch.Threshold)-ContextRearmBand:
					if l, err := RearmContext(p.Pane, int64(ch.Threshold)); err == nil {
						rearm = append(rearm, l)
					}
				}
			}
		}
	}
	return arms, rearm
}

func optMS(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// NewSettings is a firer's Settings from its config and environment.
func NewSettings(cfg *config.Config, lookup func(string) (string, bool)) Settings {
	home, _ := os.UserHomeDir()
	getenv := func(k string) string { v, _ := lookup(k); return v }
	return Settings{Config: cfg, Env: config.Env(lookup), Getenv: getenv, Home: home}
}

// GitLabels is the Labeler of a git resolver (one memoized call per dir).
func GitLabels(r *gitinfo.Resolver) Labeler {
	return func(dir string) (string, string) {
		if l := r.Resolve(dir); l != nil {
			return l.Repo, l.Branch
		}
		return "", ""
	}
}

// Lines renders arms with one nonce; an arm that cannot render (a bad pane
// id) is left out.
func Lines(arms []Arm, nonce string) []string {
	var out []string
	for _, a := range arms {
		if l, err := a.Line(nonce); err == nil {
			out = append(out, l)
		}
	}
	return out
}
