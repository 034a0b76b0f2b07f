package tmux

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/tmux/listcall"
	"github.com/tmaproject/tma/lib/tmux/spawn"
)

// DefaultTimeout bounds every tmux call: a wedged server degrades to a stale
// status segment, never a hung hook or status line.
const DefaultTimeout = 3 * time.Second

// KillWait is how long a timed-out call waits for its pipes after the kill.
const KillWait = 200 * time.Millisecond

// Target names the server tma talks to.
type Target struct {
	SocketName string // -L
	SocketPath string // -S
}

// Args returns the tmux flags that select the server.
func (t Target) Args() []string { return listcall.SocketArgs(t.SocketName, t.SocketPath) }

// String describes the server for error messages.
func (t Target) String() string {
	switch {
	case t.SocketPath != "":
		return t.SocketPath
	case t.SocketName != "":
		return "-L " + t.SocketName
	}
	return "the default socket"
}

// ResolveTarget applies the documented precedence: a flag wins, then
// TMA_SOCKET_PATH, then $TMUX (the server we are inside), then tmux's default.
func ResolveTarget(flagName, flagPath string, getenv func(string) string) Target {
	name, path := listcall.Socket(flagName, flagPath, getenv)
	return Target{SocketName: name, SocketPath: path}
}

// ResolveBin applies TMA_TMUX_BIN > [tmux] bin > "tmux".
func ResolveBin(configBin string, getenv func(string) string) string {
	if b := getenv("TMA_TMUX_BIN"); b != "" {
		return b
	}
	if configBin != "" {
		return configBin
	}
	return "tmux"
}

// Errors a caller may need to tell apart.
var (
	ErrNoServer     = errors.New("no tmux server")
	ErrNotInstalled = errors.New("tmux not installed")
	ErrProtocol     = errors.New("tmux protocol version mismatch")
	ErrPaneGone     = errors.New("pane gone")
	ErrTimeout      = errors.New("tmux did not answer in time")
)

// Error is a failed tmux call.
type Error struct {
	Kind   error // one of the Err* values, or nil for any other failure
	Target Target
	Bin    string
	Stderr string
}

func (e *Error) Unwrap() error { return e.Kind }

func (e *Error) binName() string {
	if e.Bin == "" {
		return "tmux"
	}
	return e.Bin
}

func (e *Error) Error() string {
	switch e.Kind {
	case ErrNoServer:
		return fmt.Sprintf("no tmux server running on %s", e.Target)
	case ErrNotInstalled:
		return fmt.Sprintf("tmux binary %q not found: install tmux (or point [tmux] bin / TMA_TMUX_BIN at it)", e.Bin)
	case ErrProtocol:
		return "tmux protocol version mismatch: the `" + e.binName() + "` client and the server on " + e.Target.String() + " were built\n" +
			"from different versions (are you inside tmate, or is a second tmux first on PATH?);\n" +
			"point tma at the matching client with `[tmux] bin` in config.toml or TMA_TMUX_BIN"
	case ErrTimeout:
		return fmt.Sprintf("tmux on %s did not answer within %s", e.Target, DefaultTimeout)
	case ErrPaneGone:
		return "pane gone: " + strings.TrimSpace(e.Stderr)
	}
	return "tmux: " + strings.TrimSpace(e.Stderr)
}

// Client runs tmux commands against one server.
type Client struct {
	Bin     string
	Target  Target
	Timeout time.Duration
	// Spawns counts tmux processes started; the benchmarks and the
	// constant-spawn tests read it.
	Spawns    int
	conn      *Conn // when alive, Run goes through it (see KeepConn)
	connTried time.Time
	serverPID int           // ServerPID's answer, once known
	server    ServerInfo    // the server's socket and version, for control clients
	pre       *PendingBatch // adopted: the next source-file - call goes to it
}

// New returns a client for the target, with the default timeout.
func New(bin string, t Target) *Client {
	return &Client{Bin: bin, Target: t, Timeout: DefaultTimeout}
}

// binary is the tmux the client runs: Bin, else tmux on PATH.
func (c *Client) binary() string {
	if c.Bin == "" {
		return "tmux"
	}
	return c.Bin
}

// bounded is ctx under the client's Timeout (DefaultTimeout when unset).
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	to := c.Timeout
	if to <= 0 {
		to = DefaultTimeout
	}
	return context.WithTimeout(ctx, to)
}

// Run executes one tmux invocation. stdin may be empty.
func (c *Client) Run(ctx context.Context, stdin string, args ...string) (string, string, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	if p := c.pre; p != nil && len(args) == 2 && args[0] == "source-file" && args[1] == "-" {
		c.pre = nil
		return p.finish(stdin)
	}
	if lines, ok := connLines(stdin, args); ok && c.conn.Alive() {
		out, errs, err := c.conn.Run(ctx, lines)
		switch {
		case err == nil && errs == "":
			return out, "", nil
		case err == nil:
			return out, errs, c.classify(ctx, errCommand, errs)
		case ctx.Err() != nil:
			return "", "", &Error{Kind: ErrTimeout, Target: c.Target, Bin: c.Bin}
		}
	}
	return c.spawn(ctx, stdin, args, false).wait()
}

// call is one tmux process in flight.
type call struct {
	c     *Client
	ctx   context.Context
	p     *spawn.Proc
	stdin string
	err   error // from the PATH lookup
}

// spawn starts one tmux process for args, its stdin a pipe when it is
// given one (a pending batch's lines come later, through finish).
func (c *Client) spawn(ctx context.Context, stdin string, args []string, pipe bool) *call {
	k := &call{c: c, ctx: ctx, stdin: stdin}
	c.Spawns++
	bin := c.binary()
	exe, err := exec.LookPath(bin)
	if err != nil {
		k.err = err
		return k
	}
	// -u: tmux takes a client without a UTF-8 locale (cron, an sshd
	// without PAM, LANG unset) to want its output escaped, and prints the
	// list's \x1f separator and every non-ASCII title as "_". tma's
	// clients never draw a terminal, so they always say UTF-8.
	argv := append([]string{bin}, listcall.Argv(c.Target.Args(), args)...)
	k.p = spawn.Start(exe, argv, pipe || stdin != "")
	return k
}

// wait hands the call its stdin and waits for it. The client hands its
// stdio to the server over the socket: a stopped (SIGSTOP) server holds
// those fds in its unread queue after the kill, so the pipes never reach
// end of file; KillWait bounds the wait for them.
func (k *call) wait() (string, string, error) {
	return k.finish(k.stdin)
}

func (k *call) finish(stdin string) (string, string, error) {
	if k.err != nil {
		return "", "", k.c.classify(k.ctx, k.err, "")
	}
	out, errs, err := k.p.Finish(k.ctx, stdin, KillWait)
	if err != nil {
		return out, errs, k.c.classify(k.ctx, err, errs)
	}
	return out, errs, nil
}

// errCommand is a command that failed inside a control connection: its
// stderr says which.
var errCommand = errors.New("tmux command failed")

// connLines is a call as control-mode command lines: source-file's stdin
// line by line, or the argv as one line. Any other use of stdin is not
// expressible and goes to a process.
func connLines(stdin string, args []string) ([]string, bool) {
	if len(args) == 2 && args[0] == "source-file" && args[1] == "-" {
		return strings.Split(strings.TrimRight(stdin, "\n"), "\n"), true
	}
	if stdin != "" {
		return nil, false
	}
	return []string{commandLine(args)}, true
}

func (c *Client) classify(ctx context.Context, err error, stderr string) error {
	e := &Error{Target: c.Target, Bin: c.Bin, Stderr: stderr}
	var ee *exec.Error
	switch {
	case errors.As(err, &ee), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		e.Kind = ErrNotInstalled
	case ctx.Err() != nil:
		e.Kind = ErrTimeout
	case strings.Contains(stderr, "protocol version mismatch"),
		strings.Contains(stderr, "server exited unexpectedly") && serverListens(c.Target, os.Getenv):
		e.Kind = ErrProtocol
	case strings.Contains(stderr, "no server running"),
		strings.Contains(stderr, "error connecting to"),
		strings.Contains(stderr, "No such file or directory") && strings.Contains(stderr, "connect"),
		strings.Contains(stderr, "server exited unexpectedly"):
		e.Kind = ErrNoServer
	case strings.Contains(stderr, "can't find pane"), strings.Contains(stderr, "no such pane"):
		e.Kind = ErrPaneGone
	}
	return e
}

// AttachArgv is the tmux command line that attaches a terminal to session
// on this client's server.
func (c *Client) AttachArgv(session string) []string {
	bin := c.binary()
	return append(append([]string{bin}, c.Target.Args()...), "attach-session", "-t", session)
}

// ExecAttach replaces this process with a tmux client attached to session:
// the terminal passes to tmux. It returns only on failure.
func (c *Client) ExecAttach(session string) error {
	argv := c.AttachArgv(session)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return &Error{Kind: ErrNotInstalled, Target: c.Target, Bin: argv[0]}
	}
	env := os.Environ()
	for i, kv := range env {
		if strings.HasPrefix(kv, "TMUX=") {
			env[i] = "TMUX=" // attach refuses to nest when $TMUX is set
		}
	}
	return syscall.Exec(path, argv, env)
}
