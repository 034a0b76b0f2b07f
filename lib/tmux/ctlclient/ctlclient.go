package ctlclient

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Format is how a tmux release writes an imsg header: both are 16 bytes
// (type, length, peer id, pid), and they differ only in how a message says
// a descriptor came with it.
type Format int

const (
	// FormatUnknown is refused by Dial.
	FormatUnknown Format = iota
	// FormatFlags is tmux 3.5a and older: a 16-bit length, then a 16-bit
	// flags word whose bit 0 (IMSGF_HASFD) marks a descriptor.
	FormatFlags
	// FormatMark is tmux 3.6 and newer: a 32-bit length whose top bit
	// (IMSG_FD_MARK) marks a descriptor.
	FormatMark
)

// Protocol is the client protocol version every tmux from 2.x to 3.7c
// speaks (PROTOCOL_VERSION, sent as each header's peer id).
const Protocol = 8

// The message types this client sends or reads (tmux-protocol.h; the same
// numbers in every release that speaks Protocol).
const (
	msgVersion           = 12
	msgIdentifyFlags     = 100
	msgIdentifyTerm      = 101
	msgIdentifyTTYName   = 102
	msgIdentifyStdin     = 104
	msgIdentifyEnviron   = 105
	msgIdentifyDone      = 106
	msgIdentifyClientPID = 107
	msgIdentifyCwd       = 108
	msgIdentifyFeatures  = 109
	msgIdentifyStdout    = 110
	msgIdentifyLongFlags = 111
	msgCommand           = 200
	msgDetach            = 201
	msgDetachKill        = 202
	msgExit              = 203
	msgExited            = 204
	msgExiting           = 205
	msgShutdown          = 210
	msgReadOpen          = 300
	msgWriteOpen         = 303
)

// Client flags (tmux.h, the same bits from 3.3 to 3.7c).
const (
	FlagControl = 0x2000
	FlagUTF8    = 0x10000
)

const (
	headerSize = 16
	maxMessage = 16384 // MAX_IMSGSIZE: the server drops a peer that sends more
)

// Errors a Dial or Wait can return.
var (
	ErrFormat   = errors.New("ctlclient: no known imsg format for this tmux")
	ErrProtocol = errors.New("ctlclient: the server speaks another client protocol")
	ErrTooLong  = errors.New("ctlclient: identify or command longer than one tmux message")
	errStopped  = errors.New("ctlclient: stopped mid-identify")
)

// Options are what one control client tells the server.
type Options struct {
	Socket string   // the server's socket path (#{socket_path})
	Format Format   // the server's header format
	Argv   []string // the command, as tmux's own client would pack it: attach-session -t …
	Env    []string // KEY=VALUE, the client's environment as tmux records it
	Cwd    string   // the client's working directory; "/" when empty
	Flags  uint64   // client flags; FlagControl is always added
}

// Client is one control-mode client. In and Out are the client's ends of
// the two pipes the server took: a command line written to In runs, its
// output comes back on Out; Out reaches EOF once the server has let the
// client go.
type Client struct {
	In, Out *os.File
	conn    *net.UnixConn
	format  Format
	done    chan struct{}
	mu      sync.Mutex
	err     error // why the connection ended, nil for an ordinary exit
	closed  bool
}

// Dial connects to the server and identifies as a control client running
// Argv. It returns once the whole identify is written; the server answers
// on Out.
func Dial(ctx context.Context, o Options) (*Client, error) {
	return dial(ctx, o, 3)
}

// dial is Dial making only the first writes of its three (the tests' way
// to stand for a client that dies mid-identify); with fewer than three it
// returns no client, its socket and pipes closed.
func dial(ctx context.Context, o Options, writes int) (*Client, error) {
	if o.Format != FormatFlags && o.Format != FormatMark {
		return nil, ErrFormat
	}
	tail, err := identifyTail(o)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", o.Socket)
	if err != nil {
		return nil, err
	}
	conn := nc.(*net.UnixConn)
	inR, inW, err := os.Pipe()
	if err != nil {
		conn.Close()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		conn.Close()
		inR.Close()
		inW.Close()
		return nil, err
	}
	fail := func(err error) (*Client, error) {
		conn.Close()
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetWriteDeadline(dl)
	}
	// The descriptors first, each in a message and a write of its own
	// (a read that takes a descriptor ends there). Until the tail, the
	// server holds a plain client that has not said what it is: losing
	// it, or a notification, passes it by.
	steps := []func() error{
		func() error { return sendFD(conn, o.Format, msgIdentifyStdin, inR) },
		func() error { return sendFD(conn, o.Format, msgIdentifyStdout, outW) },
		func() error { _, err := conn.Write(tail); return err },
	}
	for i, step := range steps {
		if i == writes {
			return fail(errStopped)
		}
		if err := step(); err != nil {
			return fail(err)
		}
	}
	_ = conn.SetWriteDeadline(time.Time{})
	// The server holds its own copies now; ours would keep Out from ever
	// reaching EOF.
	inR.Close()
	outW.Close()
	c := &Client{In: inW, Out: outR, conn: conn, format: o.Format, done: make(chan struct{})}
	go c.read()
	return c, nil
}

// identifyTail is every identify message but the descriptors, then the
// command: one buffer, one write. FLAGS and LONGFLAGS, which make the
// server treat the client as a control client, come last before DONE,
// which builds its control state.
func identifyTail(o Options) ([]byte, error) {
	cwd := o.Cwd
	if cwd == "" {
		cwd = "/"
	}
	flags := o.Flags | FlagControl
	var b []byte
	add := func(typ uint32, data []byte) {
		b = appendMessage(b, o.Format, typ, data, false)
	}
	add(msgIdentifyTerm, cstr(""))
	add(msgIdentifyTTYName, cstr(""))
	add(msgIdentifyCwd, cstr(cwd))
	add(msgIdentifyClientPID, le32(uint32(os.Getpid())))
	for _, kv := range o.Env {
		if len(kv)+1 > maxMessage-headerSize {
			return nil, ErrTooLong
		}
		add(msgIdentifyEnviron, cstr(kv))
	}
	add(msgIdentifyFeatures, le32(0))
	add(msgIdentifyLongFlags, binary.NativeEndian.AppendUint64(nil, flags))
	add(msgIdentifyFlags, le32(uint32(flags)))
	add(msgIdentifyDone, nil)
	cmd := le32(uint32(len(o.Argv)))
	for _, a := range o.Argv {
		cmd = append(cmd, cstr(a)...)
	}
	if len(cmd) > maxMessage-headerSize {
		return nil, ErrTooLong
	}
	add(msgCommand, cmd)
	return b, nil
}

func cstr(s string) []byte { return append([]byte(s), 0) }

func le32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }

// appendMessage appends one imsg: the header in the server's format, then
// data. tmux writes headers in the host's byte order.
func appendMessage(b []byte, f Format, typ uint32, data []byte, fd bool) []byte {
	n := uint32(headerSize + len(data))
	b = binary.NativeEndian.AppendUint32(b, typ)
	switch f {
	case FormatFlags:
		var flags uint16
		if fd {
			flags = 1 // IMSGF_HASFD
		}
		b = binary.NativeEndian.AppendUint16(b, uint16(n))
		b = binary.NativeEndian.AppendUint16(b, flags)
	default:
		if fd {
			n |= 0x80000000 // IMSG_FD_MARK
		}
		b = binary.NativeEndian.AppendUint32(b, n)
	}
	b = binary.NativeEndian.AppendUint32(b, Protocol)
	b = binary.NativeEndian.AppendUint32(b, uint32(os.Getpid()))
	return append(b, data...)
}

func sendFD(conn *net.UnixConn, f Format, typ uint32, file *os.File) error {
	raw, err := file.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = raw.Control(func(fd uintptr) {
		_, _, werr = conn.WriteMsgUnix(appendMessage(nil, f, typ, nil, true), syscall.UnixRights(int(fd)), nil)
	})
	if err != nil {
		return err
	}
	return werr
}

// read takes the server's messages until the connection ends. A control
// client's output travels on Out; on the socket come only the exit and
// detach handshakes, flags and file requests, none of which carry data
// this client needs.
func (c *Client) read() {
	defer close(c.done)
	defer c.conn.Close()
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		n, err := c.conn.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for len(buf) >= headerSize {
			typ := binary.NativeEndian.Uint32(buf[0:4])
			size := int(binary.NativeEndian.Uint32(buf[4:8]) &^ 0x80000000)
			if c.format == FormatFlags {
				size = int(binary.NativeEndian.Uint16(buf[4:6]))
			}
			if size < headerSize || size > maxMessage {
				c.end(fmt.Errorf("ctlclient: a message of %d bytes from the server", size))
				return
			}
			if len(buf) < size {
				break
			}
			buf = buf[size:]
			if !c.handle(typ) {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.end(err)
			}
			return
		}
	}
}

// handle answers one message as tmux's own control client does and
// reports whether the connection goes on.
func (c *Client) handle(typ uint32) bool {
	switch typ {
	case msgVersion:
		c.end(ErrProtocol)
		return false
	case msgExit, msgShutdown, msgExited:
		return false
	case msgDetach, msgDetachKill:
		_, _ = c.conn.Write(appendMessage(nil, c.format, msgExiting, nil, false))
	case msgReadOpen, msgWriteOpen:
		// A command asked to read or write a file on the client's side,
		// which nothing tma sends does: leave rather than hold it waiting.
		c.end(errors.New("ctlclient: the server asked for a client file"))
		return false
	}
	return true
}

func (c *Client) end(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

// Close ends the client: its stdin closed (the server's control client
// ends on EOF) and the socket closed (the server loses it, which for a
// whole control client is an ordinary departure).
func (c *Client) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	_ = c.In.Close()
	_ = c.conn.Close()
}

// Done is closed once the connection to the server has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Wait blocks until the connection has ended and says why: nil for an
// ordinary exit, ErrProtocol for a server that refused the version.
func (c *Client) Wait() error {
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
