package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// ptyClient is a real tmux client attached through script(1): its terminal
// input is a pipe the test writes keys into, and everything tmux drew on it
// is in typescript.
type ptyClient struct {
	e          *env
	name       string
	in         io.WriteCloser
	typescript string
}

// attach attaches a client to target (a session or window) and waits for it.
func (e *env) attach(target string) *ptyClient {
	e.t.Helper()
	testkit.Need(e.t, "script")
	before := e.clients()
	ts := filepath.Join(e.t.TempDir(), "typescript")
	cmd := exec.Command("script", "-qfc", e.s.Bin+" -L "+e.s.Name+" attach -t "+target, ts)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "TMUX=", "HOME="+e.home, "PATH="+binDir+":"+os.Getenv("PATH"))
	in, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := &ptyClient{e: e, in: in, typescript: ts}
	e.s.WaitFor(func() bool {
		for _, n := range e.clients() {
			if !strings.Contains(" "+strings.Join(before, " ")+" ", " "+n+" ") {
				c.name = n
				return true
			}
		}
		return false
	}, "a client attached")
	return c
}

func (e *env) clients() []string {
	out, _ := e.s.Run("list-clients", "-F", "#{client_name}")
	return strings.Fields(out)
}

// pane is the pane the client is showing.
func (c *ptyClient) pane() string {
	out, _ := c.e.s.Run("display", "-p", "-c", c.name, "#{pane_id}")
	return strings.TrimSpace(out)
}

// waitPane waits until the client shows pane.
func (c *ptyClient) waitPane(pane, why string) {
	c.e.t.Helper()
	var got string
	c.e.s.WaitFor(func() bool { got = c.pane(); return got == pane }, why+": client on "+pane+" (last: "+got+")")
}

// keys types raw bytes into the client's terminal.
func (c *ptyClient) keys(s string) {
	c.e.t.Helper()
	if _, err := io.WriteString(c.in, s); err != nil {
		c.e.t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
}

// seen reports whether the client's terminal has drawn text.
func (c *ptyClient) seen(text string) bool {
	b, _ := os.ReadFile(c.typescript)
	return strings.Contains(string(b), text)
}

// window starts a plain window running cmd and returns its pane.
func (e *env) window(session, cmd string) string {
	e.t.Helper()
	return strings.TrimSpace(e.s.MustRun("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", session+":", "sh", "-c", cmd))
}
