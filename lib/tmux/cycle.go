package tmux

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tmaproject/tma/lib/tmux/listcall"
)

// The list's fields and options are listcall's: the call prelist starts
// before tma-scan's packages are initialized is built from the same words.
var (
	// OptionNames are the pane options the cycle reads in its one list-panes:
	// the whole @agent_* set and tma's internal anchors.
	OptionNames = listcall.OptionNames
	// StandaloneOptions may stand on a pane without @agent_name (see listcall).
	StandaloneOptions = listcall.StandaloneOptions

	listed, bound = listcall.Listed, listcall.Bound
	paneFields    = listcall.PaneFields
	windowFields  = listcall.WindowFields
	serverFields  = listcall.ServerFields
)

const sep = listcall.Sep

// PaneFormat is the list-panes -F format of a cycle: the pane fields, the
// options (see StandaloneOptions), the title last.
func PaneFormat() string { return listcall.PaneFormat("TMAP") }

// PaneInfo is one pane as list-panes reports it.
type PaneInfo struct {
	ID, Session, SessionID string
	Window                 int
	WindowID               string
	Index                  int
	PID                    int
	Command, CWD           string
	Width, Height          int
	AlternateOn, InMode    bool
	Scroll                 int // -1 outside a mode
	WindowActivity         int64
	Active, Dead           bool
	WindowSummary          string
	SessionSummary         string
	Opts                   map[string]string
	Title                  string
}

// ClientInfo is one attached client.
type ClientInfo struct {
	Name, Pane, Session string
	Activity            int64
	Control             bool
}

// Snapshot is what one list call returns.
type Snapshot struct {
	Server, Version string
	LastPoll        int64 // @tma_last_poll, the ambient-driver hint
	LastStatus      int64 // @tma_status_at: when `tma status` last committed a cycle
	Panes           []PaneInfo
	Clients         []ClientInfo
}

// List reads every pane on the server, every @agent_* option and the clients,
// in one tmux invocation.
func (c *Client) List(ctx context.Context) (*Snapshot, error) {
	nonce := listcall.Nonce()
	out, _, err := c.Run(ctx, "", listcall.Args(nonce)...)
	if err != nil {
		return nil, err
	}
	snap, err := parseList(out, nonce)
	c.noteServer(snap)
	return snap, err
}

// PendingList is a list call already running: a one-shot scan starts it
// before it has parsed its flags or loaded its config, so tmux answers
// while the scan starts up, and takes it only if the client it then builds
// is the one the call guessed (see Client.Same).
type PendingList struct {
	client *Client
	nonce  string
	call   *call // spawned here, or the one prelist started, taken over
	ctx    context.Context
	cancel context.CancelFunc
	taken  bool
}

// StartList starts a list call and returns at once. Where prelist started
// this very call while the program was still initializing, it takes that
// one over instead of spawning.
func (c *Client) StartList(ctx context.Context) *PendingList {
	ctx, cancel := c.bounded(ctx)
	bin := c.binary()
	if p := listcall.Take(bin, c.Target.Args()); p != nil {
		c.Spawns++
		return &PendingList{client: c, nonce: p.Nonce, call: &call{c: c, ctx: ctx, p: p.Proc}, ctx: ctx, cancel: cancel}
	}
	nonce := listcall.Nonce()
	return &PendingList{client: c, nonce: nonce, call: c.spawn(ctx, "", listcall.Args(nonce), false), ctx: ctx, cancel: cancel}
}

// For reports whether the call lists what c would: the same binary and
// server.
func (p *PendingList) For(c *Client) bool {
	return p != nil && !p.taken && p.client.Bin == c.Bin && p.client.Target == c.Target
}

// Wait returns the call's snapshot. c, the client that takes the call over,
// counts its spawn.
func (p *PendingList) Wait(c *Client) (*Snapshot, error) {
	p.taken = true
	defer p.cancel()
	c.Spawns += p.client.Spawns
	out, _, err := p.call.wait()
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Target, e.Bin = c.Target, c.Bin
		}
		return nil, err
	}
	snap, err := parseList(out, p.nonce)
	c.noteServer(snap)
	return snap, err
}

// Abandon ends a call nobody took (a flag error, --help, another server
// after all); a taken one is left alone.
func (p *PendingList) Abandon() {
	if p == nil || p.taken {
		return
	}
	p.taken = true
	p.cancel()
	_, _, _ = p.call.wait()
}

// ParseList parses the output of a list call made without a nonce.
func ParseList(out string) (*Snapshot, error) { return parseList(out, "") }

type windowInfo struct {
	session, sessionID string
	index              int
	activity           int64
	active             bool
	summary, sessSum   string
}

func parseList(out, nonce string) (*Snapshot, error) {
	// tmux 3.4 prints the unit separator back as the text \037.
	if !strings.Contains(out, sep) && strings.Contains(out, `\037`) {
		out = strings.ReplaceAll(out, `\037`, sep)
	}
	s := &Snapshot{}
	pre := func(kind string) string { return "TMA" + kind + nonce + sep }
	server, window, client, pane := pre("S"), pre("W"), pre("C"), pre("P")
	windows := map[string]*windowInfo{}
	nf := 1 + len(paneFields) + len(OptionNames) + 1
	panes := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, pane):
			panes = true
			f := strings.SplitN(line, sep, nf)
			if len(f) != nf {
				return nil, fmt.Errorf("list-panes: %d fields, want %d", len(f), nf)
			}
			p := PaneInfo{
				ID: f[1], WindowID: f[2], Index: atoi(f[3]), PID: atoi(f[4]), Command: f[5], CWD: f[6],
				Width: atoi(f[7]), Height: atoi(f[8]), AlternateOn: f[9] == "1",
				InMode: f[10] == "1", Scroll: -1, Active: f[12] == "1", Dead: f[13] == "1",
				Opts:  map[string]string{},
				Title: f[nf-1],
			}
			if f[11] != "" {
				p.Scroll = atoi(f[11])
			}
			if w := windows[p.WindowID]; w != nil {
				p.Session, p.SessionID, p.Window, p.WindowActivity = w.session, w.sessionID, w.index, w.activity
				p.Active = p.Active && w.active
				p.WindowSummary, p.SessionSummary = w.summary, w.sessSum
			} else {
				p.Active = false
			}
			for i, o := range listed {
				if v := f[1+len(paneFields)+i]; v != "" {
					p.Opts[o] = v
				}
			}
			s.Panes = append(s.Panes, p)
		case panes:
			// A pane title with a newline continues the previous pane's
			// title; after the first pane nothing else can start a line.
			if line != "" {
				s.Panes[len(s.Panes)-1].Title += "\n" + line
			}
		case strings.HasPrefix(line, server):
			f := strings.Split(line, sep)
			if len(f) == 1+len(serverFields) {
				s.Server, s.Version, s.LastPoll, s.LastStatus = f[1], f[2], atoi64(f[3]), atoi64(f[4])
			}
		case strings.HasPrefix(line, window):
			f := strings.Split(line, sep)
			if len(f) != 1+len(windowFields) {
				return nil, fmt.Errorf("list-windows: %d fields, want %d", len(f), 1+len(windowFields))
			}
			windows[f[1]] = &windowInfo{session: f[2], sessionID: f[3], index: atoi(f[4]), activity: atoi64(f[5]),
				active: f[6] == "1", summary: f[7], sessSum: f[8]}
		case strings.HasPrefix(line, client):
			f := strings.Split(line, sep)
			if len(f) < 6 {
				continue
			}
			s.Clients = append(s.Clients, ClientInfo{Name: f[1], Pane: f[2], Session: f[3], Activity: atoi64(f[4]), Control: f[5] == "1"})
		}
	}
	return s, nil
}

func atoi(s string) int     { n, _ := strconv.Atoi(s); return n }
func atoi64(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// Capture reads the screens of the given panes in one invocation, a marker
// line before each, one source-file line per pane so a pane that vanished
// costs only its own screen. Panes missing from the result are gone.
func (c *Client) Capture(ctx context.Context, panes []string) (map[string]string, error) {
	if len(panes) == 0 {
		return map[string]string{}, nil
	}
	// The nonce only has to be beyond a guess by whatever prints into a
	// pane: math/rand/v2's generator is seeded from the OS per process.
	// crypto/rand would link its whole stack into every filter, a quarter
	// of a millisecond of each one's start.
	mark := fmt.Sprintf("@tma-capture:%012x:", rand.Uint64()&(1<<48-1))
	var in strings.Builder
	for _, p := range panes {
		if !ValidPaneID(p) {
			return nil, fmt.Errorf("invalid pane id %q", p)
		}
		// display -p runs its text through strftime too: keep % out of the marker.
		fmt.Fprintf(&in, "display -p -t %s '%s%s' ; capture-pane -p -e -t %s\n", p, mark, p[1:], p)
	}
	out, _, err := c.Run(ctx, in.String(), "source-file", "-")
	if err != nil {
		// A vanished pane fails its own line and sets the exit status; the
		// rest of the output is good. Anything else is a real failure.
		if e, ok := err.(*Error); !ok || (e.Kind != ErrPaneGone && e.Kind != nil) {
			return nil, err
		}
	}
	return splitCaptures(out, mark), nil
}

func splitCaptures(out, mark string) map[string]string {
	res := map[string]string{}
	cur := ""
	var b strings.Builder
	flush := func() {
		// A pane that vanished prints its marker (display -p falls back to
		// another target) but no screen: a live pane always prints its rows.
		if cur != "" && b.Len() > 0 {
			res[cur] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, mark) {
			flush()
			cur = "%" + strings.TrimRight(strings.TrimPrefix(line, mark), "\n")
			continue
		}
		if cur != "" {
			b.WriteString(line)
		}
	}
	flush()
	return res
}

// Exec runs a batch of command lines through source-file on stdin. Each line
// is its own error group: a failure costs that line only. The returned error
// is non-nil only when the server could not be reached; per-line failures
// come back as stderr text.
func (c *Client) Exec(ctx context.Context, lines []string) (string, error) {
	_, stderr, err := c.Batch(ctx, lines)
	return stderr, err
}

// Batch is Exec that also returns what the lines printed.
func (c *Client) Batch(ctx context.Context, lines []string) (stdout, stderr string, err error) {
	if len(lines) == 0 {
		return "", "", nil
	}
	stdout, stderr, err = c.Run(ctx, strings.Join(lines, "\n")+"\n", "source-file", "-")
	if err != nil {
		if e, ok := err.(*Error); ok && (e.Kind == nil || e.Kind == ErrPaneGone) {
			return stdout, stderr, nil
		}
	}
	return stdout, stderr, err
}
