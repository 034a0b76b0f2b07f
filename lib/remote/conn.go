package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
)

// Conn is one serve connection held open, for a surface that asks more
// than once (a remote wait): one ssh session, many requests.
type Conn struct {
	r      config.Remote
	cmd    *exec.Cmd
	in     io.WriteCloser
	frames chan []byte
	kill   func()
	// IntervalMS is the host's reconcile_interval_ms, from its hello.
	IntervalMS int
	next       int
}

// Dial starts r's command and says hello, within r's timeout.
func Dial(ctx context.Context, r config.Remote, version string) (*Conn, error) {
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 100 * time.Millisecond
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Conn{r: r, cmd: cmd, in: in, frames: make(chan []byte, 16), next: 1}
	var once sync.Once
	c.kill = func() { once.Do(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) }
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 32<<20)
		for sc.Scan() {
			c.frames <- append([]byte(nil), sc.Bytes()...)
		}
		close(c.frames)
	}()
	var h struct {
		ReconcileIntervalMS int `json:"reconcile_interval_ms"`
	}
	if err := c.ask(ctx, "hello", map[string]any{"app": App, "app_version": version, "device": ""}, "hello", r.Timeout(), &h); err != nil {
		// A dial that failed has cost its timeout already: no grace on top.
		c.Kill()
		return nil, err
	}
	c.IntervalMS = h.ReconcileIntervalMS
	return c, nil
}

// ask sends one request and decodes the answer of type want into v.
func (c *Conn) ask(ctx context.Context, t string, body map[string]any, want string, timeout time.Duration, v any) error {
	id := strconv.Itoa(c.next)
	c.next++
	req := map[string]any{"schema": 1, "id": id, "t": t}
	for k, x := range body {
		req[k] = x
	}
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("%w: %v", errEnded, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return &TimeoutError{timeout}
		case b, ok := <-c.frames:
			if !ok {
				return errEnded
			}
			var f struct {
				ID      string `json:"id"`
				T       string `json:"t"`
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(b, &f) != nil {
				return fmt.Errorf("not a serve frame: %s", clip(string(b)))
			}
			switch {
			case f.T == "error" && (f.ID == id || f.ID == "0"):
				return &RefusedError{f.Code, f.Message}
			case f.T == want && f.ID == id:
				return json.Unmarshal(b, v)
			}
		}
	}
}

// Snap is one snapshot of a held connection.
type Snap struct {
	AtMS  int64             `json:"at_ms"`
	Rows  []record.AgentRow `json:"rows"`
	Panes []string          `json:"panes"`
}

// Snapshot runs one cycle on the host and returns its rows (host set to
// the remote's name, as Snapshot does) and every pane id on its server.
func (c *Conn) Snapshot(ctx context.Context) (*Snap, error) {
	var f Snap
	if err := c.ask(ctx, "snapshot", nil, "snapshot", c.r.Timeout(), &f); err != nil {
		return nil, err
	}
	for i := range f.Rows {
		f.Rows[i].Host = c.r.Name
	}
	return &f, nil
}

// Kill ends the connection now: the group killed, the process reaped.
func (c *Conn) Kill() {
	c.in.Close()
	c.kill()
	_ = c.cmd.Wait()
}

// Close ends the connection: stdin closed, the group killed if it lingers.
func (c *Conn) Close() {
	c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(c.r.Timeout()):
		c.kill()
		<-done
	}
}
