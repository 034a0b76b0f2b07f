package tmux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// Conn is one control-mode client that runs a follower's read commands (the
// list, the captures) without a tmux process per call: a spawned client
// costs more CPU than everything else a quiet tick does. It is attached with
// ignore-size (it never resizes a window) and no-output (no %output
// stream), and is used by one goroutine at a time.
//
// Each command's output comes back between %begin and %end (or %error)
// guard lines; notifications arrive only between blocks and are skipped. A
// pane's screen can print a line that looks like a guard, so a block ends
// only on the guard whose time and number match its %begin, and a call
// ends only on a block that printed the call's own sentinel, a nonce no
// pane can know.
type Conn struct {
	proc controlProc
	in   io.WriteCloser
	out  *os.File
	rd   *bufio.Reader
	err  error // set once the conn is unusable; every later call returns it
	once bool
}

// ErrConnClosed is a call on a Conn that has failed or was closed.
var ErrConnClosed = errors.New("control connection closed")

// Dial attaches a control client to session and waits until it answers.
func (c *Client) Dial(ctx context.Context, session string) (*Conn, error) {
	cp, err := c.startControl(ctx, session, "ignore-size,no-output")
	if err != nil {
		return nil, err
	}
	k := &Conn{proc: cp, in: cp.stdin(), out: cp.stdout(), rd: bufio.NewReaderSize(cp.stdout(), 64<<10)}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	if _, _, err := k.Run(ctx, []string{"display-message -p ''"}); err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// Run sends command lines (each its own error group, as in source-file) and
// returns what they printed: stdout from the blocks that ended in %end,
// stderr from the ones that ended in %error. A failure of the connection
// itself (EOF, the deadline) closes it and is returned as ErrConnClosed or
// ErrTimeout; the caller may redo the call another way.
func (k *Conn) Run(ctx context.Context, lines []string) (stdout, stderr string, err error) {
	if k.err != nil {
		return "", "", k.err
	}
	nonce := fmt.Sprintf("TMAEND%016x", rand.Uint64())
	var req strings.Builder
	for _, l := range lines {
		if strings.ContainsAny(l, "\n\r") {
			return "", "", fmt.Errorf("control command carries a line break: %q", l)
		}
		if strings.TrimSpace(l) == "" {
			continue // an empty line detaches a control client
		}
		req.WriteString(l)
		req.WriteByte('\n')
	}
	req.WriteString("display-message -p '" + nonce + "'\n")
	if dl, ok := ctx.Deadline(); ok {
		_ = k.out.SetReadDeadline(dl)
	} else {
		_ = k.out.SetReadDeadline(time.Now().Add(DefaultTimeout))
	}
	if _, err := io.WriteString(k.in, req.String()); err != nil {
		return "", "", k.fail(ErrConnClosed)
	}
	var out, errb, block strings.Builder
	open := "" // the time and number of the open block's %begin, "" between blocks
	mine := false
	for {
		line, rerr := k.rd.ReadString('\n')
		if rerr != nil {
			if errors.Is(rerr, os.ErrDeadlineExceeded) || ctx.Err() != nil {
				return "", "", k.fail(ErrTimeout)
			}
			return "", "", k.fail(ErrConnClosed)
		}
		body := strings.TrimSuffix(line, "\n")
		if open == "" {
			// Between blocks: notifications (%window-add, %exit …) and
			// nothing else. Only a %begin opens a block.
			if rest, ok := strings.CutPrefix(body, "%begin "); ok {
				open, mine = guardKey(rest)
				block.Reset()
			} else if strings.HasPrefix(body, "%exit") {
				return "", "", k.fail(ErrConnClosed)
			}
			continue
		}
		kind, rest, isGuard := cutGuard(body)
		if !isGuard || guardKeyOnly(rest) != open {
			block.WriteString(line)
			continue
		}
		open = ""
		if !mine {
			continue // a block this client's commands did not start (a hook's)
		}
		if block.String() == nonce+"\n" {
			return out.String(), errb.String(), nil
		}
		if kind == "%end" {
			out.WriteString(block.String())
		} else {
			errb.WriteString(block.String())
		}
	}
}

// guardKey splits a %begin's "time number flags" into the key its end
// guard repeats and whether the block is a command this client sent (flags
// 1; a hook's command runs with 0).
func guardKey(rest string) (string, bool) {
	f := strings.Fields(rest)
	if len(f) < 3 {
		return rest, false
	}
	return f[0] + " " + f[1], f[2] == "1"
}

func guardKeyOnly(rest string) string {
	k, _ := guardKey(rest)
	return k
}

func cutGuard(line string) (kind, rest string, ok bool) {
	for _, g := range []string{"%end", "%error"} {
		if r, found := strings.CutPrefix(line, g+" "); found {
			return g, r, true
		}
	}
	return "", "", false
}

func (k *Conn) fail(err error) error {
	if k.err == nil {
		k.err = err
		k.Close()
	}
	return err
}

// Alive reports whether the connection can still take calls.
func (k *Conn) Alive() bool { return k != nil && k.err == nil }

// Close ends the client (stdin closed, SIGTERM: see dieWithParent) and
// waits at most CloseWait for it to go; a client of a server that does not
// answer exits when the server does.
func (k *Conn) Close() {
	if k.once {
		return
	}
	k.once = true
	if k.err == nil {
		k.err = ErrConnClosed
	}
	_ = k.in.Close()
	k.proc.stop()
	done := make(chan struct{})
	go func() { _ = k.proc.wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(CloseWait):
	}
}

// commandLine renders an argv call as one command line: every word quoted,
// the ";" separators bare.
func commandLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == ";" {
			b.WriteString(";")
			continue
		}
		b.WriteString(Quote(a))
	}
	return b.String()
}

// KeepConn gives the client a control connection to the first of sessions
// when it has none alive, trying at most once per ReprobeAfter after a
// failure: a follower calls it after every cycle. It reports whether calls
// now go through a connection.
func (c *Client) KeepConn(ctx context.Context, sessions []string) bool {
	if c.conn.Alive() {
		return true
	}
	if len(sessions) == 0 || (!c.connTried.IsZero() && time.Since(c.connTried) < ReprobeAfter) {
		return false
	}
	c.connTried = time.Now()
	k, err := c.Dial(ctx, sessions[0])
	if err != nil {
		return false
	}
	c.conn, c.connTried = k, time.Time{} // a later loss redials at once
	return true
}

// CloseConn ends the client's control connection, if any.
func (c *Client) CloseConn() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
