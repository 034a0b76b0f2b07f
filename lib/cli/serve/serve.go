package servecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/cli/act"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/serve/grammar"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/serve"
)

type serveCmd = grammar.Serve

type cli = grammar.CLI

// Grammar is tma-serve's command line as kong parses it, for the
// completion scripts.
func Grammar() any { return grammar.Grammar() }

// Run is tma-serve's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	// A usage error is said on stderr (only --help, typed by a person,
	// prints on stdout); a connection's stdout carries frames only.
	var c cli
	kctx, code, ok := common.Parse(e, &c, "Answer one remote connection: NDJSON frames on stdin/stdout, logs on stderr.", args)
	if !ok {
		return code
	}
	if strings.HasPrefix(kctx.Command(), "remote-act") {
		return remoteAct(e, &c.Globals, &c.RemoteAct)
	}
	if kctx.Command() == "remote-wait" {
		return remoteWait(e, &c.Globals, &c.RemoteWait)
	}
	if kctx.Command() == "remote-subscribe" {
		return remoteSubscribe(e, &c.Globals, &c.RemoteSubscribe)
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "tma serve: "+format+"\n", a...)
	}
	sc := &c.Serve
	switch {
	case sc.Stdio == sc.HTTP:
		e.Errorf("serve needs exactly one of --stdio (one ssh connection) and --http (the web face)")
		return common.ExitUsage
	case sc.HTTP && sc.Device != "":
		e.Errorf("--device is --stdio's: a web device is named by its token (tma device pair NAME --web)")
		return common.ExitUsage
	case sc.Stdio && (sc.Addr != "" || sc.TLSCert != "" || sc.TLSKey != ""):
		e.Errorf("ADDR, --tls-cert and --tls-key are --http's")
		return common.ExitUsage
	case sc.Stdio && sc.Device == "":
		e.Errorf("--stdio needs --device <ID>, the paired device's id from the authorized_keys line")
		return common.ExitUsage
	case sc.HTTP:
		return serveHTTP(e, &c, logf)
	}
	if err := device.CheckID(c.Serve.Device); err != nil {
		logf("%v", err)
		return serve.Refuse(stdout, serve.CodeScopeDenied, serve.MsgNotPaired)
	}
	dir := common.ConfigDir(e)
	if dir == "" {
		logf("no config directory: set HOME, XDG_CONFIG_HOME or TMA_CONFIG_DIR")
		return serve.ExitFail
	}
	if code, done := guard(e, &c, dir, logf); done {
		return code
	}
	rl, err := c.Globals.NewReloader(e)
	if err != nil {
		logf("%v", err)
		return serve.ExitFail
	}
	cfg := rl.Get().Config
	release, ok, err := serve.Claim(filepath.Join(ledger.RuntimeDir(e.Getenv), "serve"), cfg.Serve.MaxConnections)
	if err != nil {
		logf("connection slots: %v", err)
		return serve.ExitFail
	}
	// The device is checked before the cap, so an unpaired dial never
	// learns how busy the host is.
	st, err := device.Load(device.Path(dir))
	if err != nil {
		logf("%v", err)
		return serve.Fail(stdout, serve.CodeInternal, "the host's device store cannot be read")
	}
	if st.ByID(c.Serve.Device) == nil {
		if release != nil {
			release()
		}
		logf("device %s refused: not paired", c.Serve.Device)
		return serve.Refuse(stdout, serve.CodeScopeDenied, serve.MsgNotPaired)
	}
	if !ok {
		logf("device %s refused: %d connections already served", c.Serve.Device, cfg.Serve.MaxConnections)
		return serve.Refuse(stdout, serve.CodeTooMany, serve.MsgTooMany)
	}
	defer release()

	utf8Locale(e)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	h := &host{e: e, g: &c.Globals, rl: rl, dir: dir, git: gitinfo.New()}
	conn := &serve.Conn{
		DeviceID: c.Serve.Device, DevicesPath: device.Path(dir), Host: common.Host(), Version: common.Version,
		IntervalMS: cfg.Serve.ReconcileIntervalMS,
		Cycle:      h.cycle, ActionKind: h.actionKind, Fire: h.fire, Receipts: h.receipts, Window: h.window, Card: h.card,
		Now: func() int64 { return time.Now().UnixMilli() }, Log: logf,
	}
	return conn.Serve(ctx, stdin, stdout)
}

// utf8Locale gives the tmux this process spawns a UTF-8 character type
// when the environment names none. sshd starts a forced command with no
// locale unless PAM or the client supplies one, and a tmux client in the C
// locale prints the cycle's \x1f field separator as "_": the list would
// parse as no panes at all.
func utf8Locale(e *common.Env) {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := e.Getenv(k); v != "" {
			if u := strings.ToUpper(v); strings.Contains(u, "UTF-8") || strings.Contains(u, "UTF8") {
				return
			}
			break
		}
	}
	_ = os.Setenv("LC_ALL", "C.UTF-8")
}

// host is what a connection observes and fires through.
type host struct {
	e   *common.Env
	g   *common.Globals
	rl  *common.Reloader
	dir string
	git *gitinfo.Resolver
}

func (h *host) cycle(ctx context.Context) (*serve.Snapshot, error) {
	l := h.rl.Get()
	tc := h.g.Tmux(h.e, l.Config)
	f, err := fleet.Run(ctx, tc, fleet.Options{Manifests: l.Manifests, Tuning: l.Tuning(), Host: common.Host(),
		Now: func() int64 { return time.Now().UnixMilli() }, Git: h.git})
	if err != nil {
		return nil, errors.New(common.DescribeTmuxError(h.e, tc, err))
	}
	s := &serve.Snapshot{AtMS: f.Cycle.NowMS, Server: f.Cycle.Server, Rows: make([]record.AgentRow, 0, len(f.Rows)), Panes: f.Cycle.Panes}
	for _, r := range f.Rows {
		s.Rows = append(s.Rows, r.Row)
	}
	return s, nil
}

// actionKind loads the actions the broker would (bundled and the user's),
// so an exec action is known as one whatever it is called.
func (h *host) actionKind(name string) (string, bool) {
	set, err := act.Load(filepath.Join(h.dir, "actions"))
	if err != nil {
		return "", false
	}
	a := set.Get(name)
	if a == nil {
		return "", false
	}
	return a.Kind, true
}

// fire runs the broker in this process, exactly as `tma act <name> --pane
// P --slot S --device D --json` would: the same gate, lock, slot ledger and
// receipts as a local fire. No --yes and no --force: neither is available
// remotely.
func (h *host) fire(ctx context.Context, d serve.Dispatch) (serve.Receipt, error) {
	args := h.globalArgs()
	args = append(args, "act", d.Action, "--pane="+d.Pane, "--slot="+d.Slot, "--device="+d.Device, "--json", "--source=serve")
	if d.Text != nil {
		args = append(args, "--text="+*d.Text)
	}
	if d.Arg != nil {
		args = append(args, "--arg="+*d.Arg)
	}
	if d.ExpectEpisodeMS != nil {
		args = append(args, "--expect-episode-ms="+strconv.FormatInt(*d.ExpectEpisodeMS, 10))
	}
	var out, errb bytes.Buffer
	code := actcmd.Run(args, strings.NewReader(""), &out, &errb)
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if l != "" {
			fmt.Fprintf(h.e.Stderr, "tma serve: act: %s\n", l)
		}
	}
	var r struct {
		Outcome  string  `json:"outcome"`
		ExitCode int     `json:"exit_code"`
		Reason   *string `json:"reason"`
		Cached   *bool   `json:"cached"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &r); err != nil || r.Outcome == "" {
		if code == common.ExitUsage {
			msg := strings.TrimSpace(errb.String())
			msg = strings.TrimPrefix(strings.SplitN(msg, "\n", 2)[0], "tma: error: ")
			return serve.Receipt{}, &serve.UsageError{Msg: msg}
		}
		return serve.Receipt{}, fmt.Errorf("the broker gave no result (exit %d)", code)
	}
	return serve.Receipt{Outcome: r.Outcome, ExitCode: r.ExitCode, Reason: r.Reason, Cached: r.Cached != nil && *r.Cached}, nil
}

func (h *host) globalArgs() []string {
	var a []string
	g := h.g
	for _, f := range []struct{ name, v string }{{"socket-name", g.SocketName}, {"socket-path", g.SocketPath},
		{"config", g.Config}, {"manifest-dir", g.ManifestDir}} {
		if f.v != "" {
			a = append(a, "--"+f.name+"="+f.v)
		}
	}
	return a
}

func (h *host) receipts(_ context.Context, slot string) (json.RawMessage, error) {
	es, err := ledger.Read(filepath.Join(ledger.RuntimeDir(h.e.Getenv), ledger.FileName))
	if err != nil {
		return nil, fmt.Errorf("receipt ledger: %v", err)
	}
	rs := ledger.Receipts(es, slot)
	if rs == nil {
		return json.RawMessage("[]"), nil
	}
	b, err := json.Marshal(rs)
	return b, err
}
