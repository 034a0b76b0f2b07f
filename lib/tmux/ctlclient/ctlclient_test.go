package ctlclient_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
	"github.com/tmaproject/tma/lib/tmux/ctlclient"
)

type message struct {
	typ  uint32
	fd   bool // the header says a descriptor came with it
	data []byte
}

// parse splits one read into messages, in the header format given.
func parse(t *testing.T, f ctlclient.Format, b []byte) []message {
	t.Helper()
	var out []message
	for len(b) > 0 {
		if len(b) < 16 {
			t.Fatalf("a read ends in a partial header: % x", b)
		}
		m := message{typ: binary.NativeEndian.Uint32(b[0:4])}
		var n int
		if f == ctlclient.FormatFlags {
			n = int(binary.NativeEndian.Uint16(b[4:6]))
			m.fd = binary.NativeEndian.Uint16(b[6:8])&1 != 0
		} else {
			l := binary.NativeEndian.Uint32(b[4:8])
			n, m.fd = int(l&^0x80000000), l&0x80000000 != 0
		}
		if peer := binary.NativeEndian.Uint32(b[8:12]); peer != ctlclient.Protocol {
			t.Fatalf("message %d has peer id %d, want the protocol version", m.typ, peer)
		}
		if n < 16 || n > len(b) {
			t.Fatalf("message %d claims %d bytes of %d", m.typ, n, len(b))
		}
		m.data, b = b[16:n], b[n:]
		out = append(out, m)
	}
	return out
}

type read struct {
	msgs []message
	fds  []int
}

// fakeServer accepts one client and returns its first three reads, as the
// server's event loop would take them, and its connection.
func fakeServer(t *testing.T, f ctlclient.Format) (string, <-chan []read, <-chan *net.UnixConn) {
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	reads, conns := make(chan []read, 1), make(chan *net.UnixConn, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			return
		}
		conns <- c
		var rs []read
		buf, oob := make([]byte, 65535), make([]byte, syscall.CmsgSpace(4*4))
		for len(rs) < 3 {
			n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
			if err != nil {
				break
			}
			r := read{msgs: parse(t, f, append([]byte(nil), buf[:n]...))}
			cms, _ := syscall.ParseSocketControlMessage(oob[:oobn])
			for _, cm := range cms {
				fds, _ := syscall.ParseUnixRights(&cm)
				r.fds = append(r.fds, fds...)
			}
			rs = append(rs, r)
		}
		reads <- rs
	}()
	return sock, reads, conns
}

// The server reads the descriptors alone, one a read, and then everything
// else in one read that ends with FLAGS, LONGFLAGS, DONE and the command:
// there is no read after which the server holds a control client it has
// not set up (the tmux before 3.7 crash). tmux's own client sends FLAGS
// first and the descriptors in between, which this test refuses.
func TestIdentifyEndsInOneRead(t *testing.T) {
	for _, f := range []ctlclient.Format{ctlclient.FormatFlags, ctlclient.FormatMark} {
		sock, reads, conns := fakeServer(t, f)
		argv := []string{"attach-session", "-E", "-f", "ignore-size,no-output", "-t", "$0"}
		c, err := ctlclient.Dial(context.Background(), ctlclient.Options{Socket: sock, Format: f, Argv: argv, Env: []string{"HOME=/h"}, Cwd: "/", Flags: ctlclient.FlagUTF8})
		if err != nil {
			t.Fatal(err)
		}
		var rs []read
		select {
		case rs = <-reads:
		case <-time.After(5 * time.Second):
			t.Fatal("the fake server never read three times")
		}
		if len(rs) != 3 {
			t.Fatalf("format %d: %d reads, want 3", f, len(rs))
		}
		for i, want := range []uint32{ctlclient.MsgIdentifyStdin, ctlclient.MsgIdentifyStdout} {
			r := rs[i]
			if len(r.msgs) != 1 || r.msgs[0].typ != want || !r.msgs[0].fd || len(r.fds) != 1 {
				t.Fatalf("format %d: read %d is %+v with %d descriptors, want message %d alone, marked, with one", f, i, r.msgs, len(r.fds), want)
			}
		}
		tail := rs[2]
		if len(tail.fds) != 0 {
			t.Fatalf("format %d: the tail carries %d descriptors", f, len(tail.fds))
		}
		var types []uint32
		for _, m := range tail.msgs {
			if m.fd {
				t.Errorf("format %d: message %d in the tail is marked as carrying a descriptor", f, m.typ)
			}
			types = append(types, m.typ)
		}
		n := len(types)
		if n < 4 || types[n-4] != ctlclient.MsgIdentifyLongFlags || types[n-3] != ctlclient.MsgIdentifyFlags ||
			types[n-2] != ctlclient.MsgIdentifyDone || types[n-1] != ctlclient.MsgCommand {
			t.Fatalf("format %d: the tail's types %v do not end LONGFLAGS FLAGS DONE COMMAND", f, types)
		}
		for _, typ := range types[:n-4] {
			if typ == ctlclient.MsgIdentifyFlags || typ == ctlclient.MsgIdentifyLongFlags {
				t.Fatalf("format %d: a flags message before the tail's end: %v", f, types)
			}
		}
		if fl := binary.NativeEndian.Uint32(tail.msgs[n-3].data); fl&ctlclient.FlagControl == 0 || fl&ctlclient.FlagUTF8 == 0 {
			t.Errorf("format %d: FLAGS %#x lacks control or UTF-8", f, fl)
		}
		cmd := tail.msgs[n-1].data
		if argc := binary.NativeEndian.Uint32(cmd[:4]); argc != uint32(len(argv)) {
			t.Errorf("format %d: argc %d, want %d", f, argc, len(argv))
		}
		if got := strings.Split(strings.TrimSuffix(string(cmd[4:]), "\x00"), "\x00"); strings.Join(got, " ") != strings.Join(argv, " ") {
			t.Errorf("format %d: argv %q, want %q", f, got, argv)
		}
		// The descriptors are the pipes: what the client writes reaches the
		// server's stdin, what the server writes comes out of the client.
		stdin, stdout := os.NewFile(uintptr(rs[0].fds[0]), "stdin"), os.NewFile(uintptr(rs[1].fds[0]), "stdout")
		if _, err := c.In.WriteString("list-panes\n"); err != nil {
			t.Fatal(err)
		}
		got, _ := bufio.NewReader(stdin).ReadString('\n')
		if got != "list-panes\n" {
			t.Errorf("format %d: the server's stdin read %q", f, got)
		}
		stdout.WriteString("%begin 1 1 1\n")
		stdout.Close()
		line, _ := bufio.NewReader(c.Out).ReadString('\n')
		if line != "%begin 1 1 1\n" {
			t.Errorf("format %d: the client's stdout read %q", f, line)
		}
		stdin.Close()
		// The server ends it as tmux does: MSG_EXIT, and the client goes.
		conn := <-conns
		exit := make([]byte, 16)
		binary.NativeEndian.PutUint32(exit[0:], ctlclient.MsgExit)
		binary.NativeEndian.PutUint32(exit[4:], 16)
		binary.NativeEndian.PutUint32(exit[8:], ctlclient.Protocol)
		conn.Write(exit)
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("format %d: the client did not go on MSG_EXIT", f)
		}
		if err := c.Wait(); err != nil {
			t.Errorf("format %d: Wait after MSG_EXIT: %v", f, err)
		}
		c.Close()
		conn.Close()
	}
}

// A server that speaks another protocol answers MSG_VERSION; Wait says so.
func TestVersionRefused(t *testing.T) {
	sock, reads, conns := fakeServer(t, ctlclient.FormatMark)
	c, err := ctlclient.Dial(context.Background(), ctlclient.Options{Socket: sock, Format: ctlclient.FormatMark, Argv: []string{"attach"}})
	if err != nil {
		t.Fatal(err)
	}
	<-reads
	conn := <-conns
	defer conn.Close()
	v := make([]byte, 16)
	binary.NativeEndian.PutUint32(v[0:], ctlclient.MsgVersion)
	binary.NativeEndian.PutUint32(v[4:], 16)
	binary.NativeEndian.PutUint32(v[8:], 9)
	conn.Write(v)
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not go on MSG_VERSION")
	}
	if err := c.Wait(); !errors.Is(err, ctlclient.ErrProtocol) {
		t.Fatalf("Wait = %v, want ErrProtocol", err)
	}
	c.Close()
}

// No format, no connection: a header the server misreads is fatal to it.
func TestUnknownFormatRefused(t *testing.T) {
	sock, _, conns := fakeServer(t, ctlclient.FormatMark)
	if _, err := ctlclient.Dial(context.Background(), ctlclient.Options{Socket: sock, Argv: []string{"attach"}}); !errors.Is(err, ctlclient.ErrFormat) {
		t.Fatalf("Dial with no format: %v, want ErrFormat", err)
	}
	select {
	case <-conns:
		t.Fatal("Dial with no format connected")
	case <-time.After(100 * time.Millisecond):
	}
}

func realServer(t *testing.T) (*testkit.Server, ctlclient.Options) {
	s := testkit.NewServer(t)
	ver, sock, _ := strings.Cut(strings.TrimSpace(s.MustRun("display", "-p", "#{version} #{socket_path}")), " ")
	choice := tmux.ControlFor(ver)
	if choice.Mode != tmux.ControlOwn {
		t.Fatalf("tmux %s gets control mode %v; this test needs a release tma's own client speaks", ver, choice.Mode)
	}
	return s, ctlclient.Options{Socket: sock, Format: choice.Format, Flags: ctlclient.FlagUTF8,
		Argv: []string{"attach-session", "-E", "-f", "ignore-size,no-output", "-t", "s"}}
}

// Against a real server: a command written to In is answered on Out
// between guards, the server lists the client as a control client, and
// Close lets it go.
func TestRealServer(t *testing.T) {
	s, o := realServer(t)
	c, err := ctlclient.Dial(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	c.In.WriteString("display-message -p 'tma-probe #{client_control_mode}'\n")
	c.Out.SetReadDeadline(time.Now().Add(5 * time.Second))
	rd := bufio.NewReader(c.Out)
	found := false
	for !found {
		l, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		found = l == "tma-probe 1\n"
	}
	if out := s.MustRun("list-clients", "-F", "#{client_control_mode}"); strings.TrimSpace(out) != "1" {
		t.Errorf("list-clients: %q, want one control client", out)
	}
	c.Close()
	if err := c.Wait(); err != nil {
		t.Errorf("Wait after Close: %v", err)
	}
	s.WaitFor(func() bool {
		out, _ := s.Run("list-clients")
		return strings.TrimSpace(out) == ""
	}, "the client gone")
}

// A client that dies at any point of its identify leaves the server
// alive through the notifications that crash tmux before 3.7 when they
// meet a half-identified control client (a window added, renamed,
// selected, closed; another client attaching and leaving).
func TestDeathMidIdentify(t *testing.T) {
	s, o := realServer(t)
	for writes := 0; writes <= 2; writes++ {
		for i := 0; i < 20; i++ {
			if err := ctlclient.DialPartial(context.Background(), o, writes); err == nil {
				t.Fatal("DialPartial returned no error")
			}
			w := strings.TrimSpace(s.MustRun("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "s:", "sleep 5"))
			s.MustRun("rename-window", "-t", w, "w")
			s.MustRun("select-window", "-t", w)
			s.MustRun("kill-window", "-t", w)
			whole, err := ctlclient.Dial(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			whole.Close()
			whole.Wait()
		}
		if _, err := s.Run("has-session", "-t", "s"); err != nil {
			t.Fatalf("the server died after clients stopped at write %d: %v", writes, err)
		}
	}
}
