package broker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/fold"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/jump"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/tmux"
)

// Request is one `tma act` invocation as its command line put it, already
// checked for usage errors that need no config and no tmux.
type Request struct {
	Name            string
	Pane            string             // --pane; "" for $TMUX_PANE or the selector
	All             bool               // --all
	Selector        *selector.Selector // the compiled selector flags
	Selected        bool               // some selector flag was given
	JSON            bool               // --json
	DryRun          bool               // --dry-run
	Force           bool               // --force
	Yes             bool               // --yes
	Text            *string            // --text
	Arg             []string           // --arg
	ExpectEpisodeMS *int64             // --expect-episode-ms
	ExpectRequest   *string            // --expect-permission-request
	Source          string             // --source
	Slot            string             // --slot; "" for none
	Device          string             // --device; "" for none
}

// Broker is one invocation of the action broker: what it was asked, what
// it loaded and where it writes. The command builds it and calls Fire, List
// or Menu, each returning the exit code.
type Broker struct {
	Req       Request
	Actions   *act.Set
	Config    *config.Config
	Manifests *manifest.Set
	Tuning    fold.Tuning
	Tmux      *tmux.Client
	Host      string
	// Client is the global --client (the acting tmux client), possibly an
	// unexpanded #{client_name}.
	Client string
	// ConfigArg is the --config a supervisor or a menu entry repeats ("":
	// the config was found, not named). ManifestDir likewise, and ActArgs
	// are the act flags a menu entry repeats (--config-dir).
	ConfigArg   string
	ManifestDir string
	ActArgs     []string

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Now            func() int64
	// Errorf says an error as the command speaks (`tma: error: …`).
	Errorf func(format string, a ...any)
	// DescribeTmuxError renders a tmux failure for the user.
	DescribeTmuxError func(c *tmux.Client, err error) string

	slot   *slotClaim // the ledger claim of a --slot dispatch in flight
	viaAPI bool       // the fire in hand answered over an agent's HTTP server
}

func (b *Broker) usage(format string, a ...any) int {
	b.Errorf(format, a...)
	return act.ExitUsage
}

func (b *Broker) fail(err error) int {
	b.Errorf("%v", err)
	return act.ExitError
}

func (b *Broker) note(format string, a ...any) {
	fmt.Fprintf(b.Stderr, "tma: "+format+"\n", a...)
}

// cycle runs one full cycle (every invocation is a driver); pane scopes it
// to one pane, the broker's re-read under the lock.
func (b *Broker) cycle(pane string, git *gitinfo.Resolver) (*fleet.Fleet, error) {
	f, err := fleet.Run(context.Background(), b.Tmux, fleet.Options{
		Manifests: b.Manifests, Tuning: b.Tuning, Host: b.Host,
		Now: b.Now, Git: git, Pane: pane,
	})
	if err != nil {
		return nil, errors.New(b.DescribeTmuxError(b.Tmux, err))
	}
	return f, nil
}

// server is a client on the server the cycle observed.
func (b *Broker) server(f *fleet.Fleet) *tmux.Client {
	c := *b.Tmux
	if f != nil && f.Cycle.Server != "" {
		c.Target = tmux.Target{SocketPath: f.Cycle.Server}
	}
	return &c
}

// target reads what the gate needs about pane from a cycle; exists is false
// when the server has no such pane.
func (b *Broker) target(f *fleet.Fleet, pane string) (t act.Target, row *record.Row, exists bool) {
	p := f.Pane(pane)
	if p == nil {
		return act.Target{Pane: pane}, nil, false
	}
	t = act.Target{Pane: pane, CWD: p.CWD, Title: p.Title, Lock: p.Opts[act.LockOption],
		PendingTool: p.Opts["@agent_pending_tool"], PendingCall: p.Opts["@agent_pending_call"]}
	row = f.Row(pane)
	if row == nil {
		return t, nil, true
	}
	a := &row.Row
	t.Agent, t.State = a.Agent, a.State
	t.Detail = deref(a.Detail)
	t.Context = a.Context
	t.Session = deref(a.Session)
	if a.EpisodeMS != nil {
		t.EpisodeMS = *a.EpisodeMS
	}
	if a.SinceMS != nil {
		t.Since = *a.SinceMS
	}
	if row.CWD != "" {
		t.CWD = row.CWD
	}
	t.PID = p.AgentPID
	if m := b.Manifests.Get(a.Agent); m != nil {
		t.Telemetry = m.Telemetry != nil && m.Telemetry.Context != nil
		t.SettleMS = int64(m.SettleMS)
	}
	return t, row, true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// defaultPane is $TMUX_PANE: the pane the command runs in.
func (b *Broker) defaultPane() string {
	if p := b.Getenv("TMUX_PANE"); tmux.ValidPaneID(p) {
		return p
	}
	return ""
}

// clientFlag is --client unless it is an unexpanded #{client_name}.
func (b *Broker) clientFlag() string {
	if jump.Unexpanded(b.Client) {
		return ""
	}
	return b.Client
}

// tell shows a message on the acting client: a binding's or a menu entry's
// run-shell drops stderr, so the person who pressed the key sees it there.
func (b *Broker) tell(f *fleet.Fleet, msg string) {
	if f == nil || b.clientFlag() == "" {
		return
	}
	cl, err := jump.ResolveClient(f, b.Client, b.Getenv)
	if err != nil {
		return
	}
	_, _, _ = b.server(f).Run(context.Background(), "", "display-message", "-c", cl.Name, tmux.DisplayText("tma: "+msg))
}

// tmaArgv is the dispatcher (beside this binary when installed together,
// else tma on $PATH) with the server and the config this invocation used,
// so a menu entry lands on the same server with the same actions.
func (b *Broker) tmaArgv(server string) []string {
	t := "tma"
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "tma")
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
			t = beside
		}
	}
	argv := []string{t}
	if server != "" {
		argv = append(argv, "-S", server)
	}
	if b.ConfigArg != "" {
		argv = append(argv, "--config", b.ConfigArg)
	}
	if b.ManifestDir != "" {
		argv = append(argv, "--manifest-dir", b.ManifestDir)
	}
	return argv
}

func nonce() string {
	var n [6]byte
	_, _ = rand.Read(n[:])
	return hex.EncodeToString(n[:])
}
