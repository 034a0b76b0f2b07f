package tmux

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/tmaproject/tma/lib/tmux/ctlclient"
)

// controlProc is one control-mode client, whichever way it reached the
// server: commands go down in, blocks come up out, and out reaches EOF
// once the server has let it go.
type controlProc interface {
	stdin() io.WriteCloser
	stdout() *os.File
	stop()       // ask it to go (never a way that could crash the server)
	wait() error // until it has gone; out may still hold unread lines
}

// ServerInfo is what a control client needs to know of the server: where
// its socket is and which tmux it runs (#{socket_path}, #{version}).
type ServerInfo struct {
	Socket, Version string
}

// Server is the server's socket and version, from the latest list the
// client made, else asked once.
func (c *Client) Server(ctx context.Context) (ServerInfo, error) {
	if c.server.Socket != "" && c.server.Version != "" {
		return c.server, nil
	}
	// The version first: it has no space, and a socket path may.
	out, _, err := c.Run(ctx, "", "display-message", "-p", "#{version} #{socket_path}")
	if err != nil {
		return ServerInfo{}, err
	}
	ver, sock, _ := strings.Cut(strings.TrimRight(out, "\n"), " ")
	if sock == "" || ver == "" {
		return ServerInfo{}, errors.New("tmux did not say its socket and version")
	}
	c.server = ServerInfo{Socket: sock, Version: ver}
	return c.server, nil
}

// noteServer keeps what a list said of the server, for the next attach.
func (c *Client) noteServer(s *Snapshot) {
	if s != nil && s.Server != "" && s.Version != "" {
		c.server = ServerInfo{Socket: s.Server, Version: s.Version}
	}
}

// ControlMode is the control mode this client's server gets (ControlFor
// its version).
func (c *Client) ControlMode(ctx context.Context) (ControlChoice, error) {
	si, err := c.Server(ctx)
	if err != nil {
		return ControlChoice{}, err
	}
	return ControlFor(si.Version), nil
}

// ErrNoControl is an attach refused because this server's tmux gets no
// control client (ControlPoll).
var ErrNoControl = errors.New("no control-mode client for this tmux")

// startControl attaches one control client to session with attach-session
// -f flags. It returns once the client is on its way; its first line comes
// after the server has set it up.
func (c *Client) startControl(ctx context.Context, session, flags string) (controlProc, error) {
	choice, err := c.ControlMode(ctx)
	if err != nil {
		return nil, err
	}
	argv := []string{"attach-session", "-E", "-f", flags, "-t", session}
	switch choice.Mode {
	case ControlOwn:
		dctx, cancel := c.bounded(ctx)
		defer cancel()
		cwd, _ := os.Getwd()
		k, err := ctlclient.Dial(dctx, ctlclient.Options{
			Socket: c.server.Socket, Format: choice.Format, Argv: argv,
			Env: controlEnv(), Cwd: cwd, Flags: ctlclient.FlagUTF8,
		})
		if err != nil {
			return nil, err
		}
		return ownProc{k}, nil
	case ControlTmux:
		return c.execControl(argv)
	}
	return nil, ErrNoControl
}

// execControl is `tmux -u -C attach-session …` as a child process.
func (c *Client) execControl(argv []string) (controlProc, error) {
	args := append(append(append([]string{"-u"}, c.Target.Args()...), "-C"), argv...)
	cmd := exec.Command(c.binary(), args...)
	cmd.Env = append([]string{"TMUX="}, controlEnv()...) // a client run inside tmux would refuse to nest
	dieWithParent(cmd)                                   // SIGTERM: see there why never SIGKILL
	in, err := cmd.StdinPipe()                           // held open: a control client exits on EOF
	if err != nil {
		return nil, err
	}
	rc, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	out, ok := rc.(*os.File)
	if !ok {
		return nil, errors.New("control client: stdout is not a pipe")
	}
	if err := cmd.Start(); err != nil {
		return nil, c.classify(context.Background(), err, "")
	}
	c.Spawns++
	return &execProc{cmd: cmd, in: in, out: out}, nil
}

type execProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *os.File
}

func (p *execProc) stdin() io.WriteCloser { return p.in }
func (p *execProc) stdout() *os.File      { return p.out }
func (p *execProc) stop()                 { stopClient(p.cmd.Process) }
func (p *execProc) wait() error           { return p.cmd.Wait() }

// ownProc is a ctlclient.Client: no process, so nothing to signal; a
// follower that dies takes its socket with it, and the server loses a
// client that is whole.
type ownProc struct{ k *ctlclient.Client }

func (p ownProc) stdin() io.WriteCloser { return p.k.In }
func (p ownProc) stdout() *os.File      { return p.k.Out }

// stop closes the client's side of everything: the server loses a whole
// control client, which is an ordinary departure, and a read of out
// under way ends at once, even if the server has stopped answering.
func (p ownProc) stop() {
	p.k.Close()
	_ = p.k.Out.Close()
}

// wait returns once the server has let the client go, and closes out:
// whoever reads it has reached its EOF by then, as after an exec'd
// client's Wait.
func (p ownProc) wait() error {
	err := p.k.Wait()
	_ = p.k.Out.Close()
	return err
}
