package tmux

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/tmux/listcall"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolveTarget(t *testing.T) {
	cases := []struct {
		name, flagName, flagPath string
		env                      map[string]string
		want                     Target
	}{
		{"flag path wins", "n", "/p", map[string]string{"TMA_SOCKET_PATH": "/e", "TMUX": "/t,1,2"}, Target{SocketPath: "/p"}},
		{"flag name wins over env", "n", "", map[string]string{"TMA_SOCKET_PATH": "/e"}, Target{SocketName: "n"}},
		{"TMA_SOCKET_PATH", "", "", map[string]string{"TMA_SOCKET_PATH": "/e", "TMUX": "/t,1,2"}, Target{SocketPath: "/e"}},
		{"inside tmux", "", "", map[string]string{"TMUX": "/tmp/tmux-0/default,123,0"}, Target{SocketPath: "/tmp/tmux-0/default"}},
		{"default", "", "", nil, Target{}},
	}
	for _, c := range cases {
		if got := ResolveTarget(c.flagName, c.flagPath, env(c.env)); got != c.want {
			t.Errorf("%s: got %+v want %+v", c.name, got, c.want)
		}
	}
	if got := ResolveBin("tmate", env(map[string]string{"TMA_TMUX_BIN": "/opt/tmux"})); got != "/opt/tmux" {
		t.Errorf("env bin: %s", got)
	}
	if got := ResolveBin("tmate", env(nil)); got != "tmate" {
		t.Errorf("config bin: %s", got)
	}
	if got := ResolveBin("", env(nil)); got != "tmux" {
		t.Errorf("default bin: %s", got)
	}
}

func paneLine(id, title string, opts map[string]string) string {
	f := []string{"TMAP", id, "@1", "0", "42", "claude", "/w", "80", "24", "0", "1", "3", "1", "0"}
	for _, o := range listed {
		f = append(f, opts[o])
	}
	return strings.Join(append(f, title), sep)
}

func listHead() string {
	return strings.Join([]string{"TMAS", "/tmp/sock", "3.5a", "1700000000000", "1700000000500"}, sep) + "\n" +
		strings.Join([]string{"TMAW", "@1", "s", "$0", "1", "1700000000", "1", "working:1", "working:1"}, sep) + "\n" +
		strings.Join([]string{"TMAW", "@2", "t", "$1", "4", "1700000002", "0", "", ""}, sep) + "\n"
}

func TestParseList(t *testing.T) {
	out := listHead() + "TMAC" + sep + "/dev/pts/1" + sep + "%2" + sep + "s" + sep + "1700000001" + sep + "0\n" +
		paneLine("%1", "a\x1fb", map[string]string{"@agent_state": "working"}) + "\n" +
		paneLine("%2", "first", nil) + "\nsecond line\n" +
		// After the panes, a line that looks like another kind is a title's.
		"TMAC" + sep + "/dev/pts/9" + sep + "%1" + sep + "s" + sep + "1" + sep + "0\n" +
		strings.Replace(paneLine("%3", "other window", nil), sep+"@1"+sep, sep+"@2"+sep, 1) + "\n"
	s, err := ParseList(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Panes) != 3 || s.Server != "/tmp/sock" || s.Version != "3.5a" || s.LastPoll != 1700000000000 || s.LastStatus != 1700000000500 {
		t.Fatalf("snapshot = %+v", s)
	}
	p := s.Panes[0]
	if p.Title != "a\x1fb" || p.Opts["@agent_state"] != "working" || p.Scroll != 3 || !p.InMode || !p.Active || p.Command != "claude" ||
		p.Session != "s" || p.SessionID != "$0" || p.Window != 1 || p.WindowID != "@1" || p.WindowActivity != 1700000000 ||
		p.WindowSummary != "working:1" || p.SessionSummary != "working:1" || p.PID != 42 || p.CWD != "/w" || p.Width != 80 {
		t.Errorf("pane 1 = %+v", p)
	}
	if _, ok := p.Opts["@agent_detail"]; ok {
		t.Error("an empty option should be absent")
	}
	if want := "first\nsecond line\nTMAC" + sep + "/dev/pts/9" + sep + "%1" + sep + "s" + sep + "1" + sep + "0"; s.Panes[1].Title != want {
		t.Errorf("multi-line title = %q, want %q", s.Panes[1].Title, want)
	}
	if q := s.Panes[2]; q.Session != "t" || q.Window != 4 || q.Active || q.WindowSummary != "" {
		t.Errorf("a pane of an inactive window = %+v", q)
	}
	if len(s.Clients) != 1 || s.Clients[0].Pane != "%2" || s.Clients[0].Activity != 1700000001 {
		t.Errorf("clients = %+v", s.Clients)
	}
	// tmux 3.4 prints the separator back as the text \037.
	s, err = ParseList(strings.ReplaceAll(listHead()+paneLine("%3", "t", nil), sep, `\037`))
	if err != nil || len(s.Panes) != 1 || s.Panes[0].ID != "%3" || s.Panes[0].Session != "s" {
		t.Fatalf("\\037 form: %+v %v", s, err)
	}
	if _, err := ParseList("TMAP" + sep + "%1\n"); err == nil {
		t.Error("short pane line accepted")
	}
	if _, err := ParseList("TMAW" + sep + "@1\n"); err == nil {
		t.Error("short window line accepted")
	}
}

// TestListNonce: lines the call did not ask for (another nonce) are not
// records, so nothing a pane prints as its title can pass for one.
func TestListNonce(t *testing.T) {
	forged := strings.Replace(listHead(), "TMAS", "TMASbeef", 1)
	s, err := parseList(forged+strings.Replace(paneLine("%1", "x", nil), "TMAP", "TMAPcafe", 1), "cafe")
	if err != nil || s.Server != "" || len(s.Panes) != 1 || s.Panes[0].Session != "" {
		t.Fatalf("snapshot = %+v, %v", s, err)
	}
	args := listcall.Args("cafe")
	if args[0] != "display-message" || !strings.HasPrefix(args[len(args)-1], "TMAPcafe"+sep) {
		t.Fatalf("list args = %q", args)
	}
}

func TestSplitCaptures(t *testing.T) {
	m := "@tma-capture:ab:"
	got := splitCaptures(m+"1\nline a\n\n"+m+"9\n"+m+"2\nline b\n", m)
	if got["%1"] != "line a\n\n" || got["%2"] != "line b\n" {
		t.Errorf("got %q", got)
	}
	if _, ok := got["%9"]; ok {
		t.Error("a pane with a marker and no screen is gone, not blank")
	}
}

func TestWriteLine(t *testing.T) {
	w := Write{Pane: "%3", Guard: "#{e|<:#{@agent_stamped_at},5}", Sets: []Set{
		{Name: "@agent_since", Value: "#{?#{==:#{@agent_state},idle},#{@agent_since},5}", Format: true},
		{Name: "@agent_state", Value: "idle"},
		{Name: "@agent_title", Value: "it's"},
		{Name: "@agent_detail", Unset: true},
		{Name: "@agent_stamped_at", Value: "5"},
	}}
	got, err := w.Line()
	if err != nil {
		t.Fatal(err)
	}
	want := `if-shell -F -t %3 '#{e|<:#{@agent_stamped_at},5}' 'set -pF -t %3 @agent_since '\''#{?#{==:#{@agent_state},idle},#{@agent_since},5}'\'' ; set -p -t %3 @agent_state '\''idle'\'' ; set -p -t %3 @agent_title '\''it'\''\'\'''\''s'\'' ; set -pu -t %3 @agent_detail ; set -p -t %3 @agent_stamped_at '\''5'\'''`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	bad := []Write{
		{Pane: "%3; kill-server", Sets: []Set{{Name: "@a", Value: "1"}}},
		{Pane: "%3", Sets: []Set{{Name: "@a", Value: "x\ny"}}},
		{Pane: "%3", Sets: []Set{{Name: "@a b", Value: "1"}}},
		{Pane: "%3", Sets: []Set{{Name: "status", Value: "off"}}},
	}
	for _, b := range bad {
		if _, err := b.Line(); err == nil {
			t.Errorf("accepted %+v", b)
		}
	}
}

func TestErrors(t *testing.T) {
	c := New("tmux", Target{SocketName: "x"})
	cases := []struct {
		stderr string
		kind   error
		msg    string
	}{
		{"no server running on /tmp/tmux-0/x\n", ErrNoServer, "no tmux server running on -L x"},
		{"error connecting to /tmp/tmux-0/x (No such file or directory)\n", ErrNoServer, "no tmux server"},
		{"protocol version mismatch (client 8, server 7)\n", ErrProtocol, "[tmux] bin"},
		{"can't find pane: %9\n", ErrPaneGone, "pane gone"},
		{"unknown command: frob\n", nil, "tmux: unknown command: frob"},
	}
	for _, tc := range cases {
		err := c.classify(context.Background(), errors.New("exit status 1"), tc.stderr)
		var e *Error
		if !errors.As(err, &e) || e.Kind != tc.kind || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: got %v (kind %v)", tc.stderr, err, e.Kind)
		}
	}
	if _, _, err := New("/nonexistent/tmux", Target{}).Run(context.Background(), "", "-V"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing binary: %v", err)
	}
}

// The list prints every option once: the standalone ones, then the rest
// behind @agent_name.
func TestListedOptions(t *testing.T) {
	seen := map[string]int{}
	for _, o := range listed {
		seen[o]++
	}
	for _, o := range OptionNames {
		if seen[o] != 1 {
			t.Errorf("%s is listed %d times", o, seen[o])
		}
	}
	if len(listed) != len(OptionNames) {
		t.Errorf("%d options listed, %d known", len(listed), len(OptionNames))
	}
	for _, o := range StandaloneOptions {
		if seen[o] != 1 {
			t.Errorf("standalone option %s is not one of OptionNames", o)
		}
	}
	// Both branches of the condition print the same number of fields.
	f := PaneFormat()
	i := strings.Index(f, "#{?@agent_name,")
	yes, no, ok := strings.Cut(f[i+len("#{?@agent_name,"):strings.LastIndex(f, "}"+sep+"#{pane_title}")], ",")
	if i < 0 || !ok || strings.Count(yes, sep) != strings.Count(no, sep) || strings.Count(no, sep) != len(bound) {
		t.Errorf("the @agent_name condition is malformed: %q", f)
	}
}

// A tmux client from another release is dropped by the server without a
// word of protocol: it says "server exited unexpectedly" while the server
// still listens (a 3.3a client against 3.7c, D-009). That is a mismatch,
// said as tma's own error; the same words with nothing listening are a
// server that went away.
func TestDroppedClientIsAMismatch(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux on PATH")
	}
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close() // what a server does with a header it cannot read
		}
	}()
	c := New("tmux", Target{SocketPath: sock})
	_, _, err = c.Run(context.Background(), "", "list-panes", "-a")
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("a listening server that drops the client: %v, want ErrProtocol", err)
	}
	for _, want := range []string{"protocol version mismatch", sock, "tmate", "TMA_TMUX_BIN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message lacks %q:\n%s", want, err)
		}
	}
	_ = l.Close()
	// The socket file stays behind a closed listener, as after a crash.
	if _, _, err = c.Run(context.Background(), "", "list-panes", "-a"); !errors.Is(err, ErrNoServer) {
		t.Errorf("nothing listening: %v, want ErrNoServer", err)
	}
}
